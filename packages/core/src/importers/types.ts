import type { Usage } from "../events/event-data.ts";
import type { Message } from "../messages/message.ts";
import type { ImportFormat } from "./formats.ts";

/**
 * One imported step: a message (with the provider usage reported on it, and for an assistant message the
 * model that wrote it when the source says) or a compaction that happened, with the source's time of it
 * (ISO) when the transcript records one.
 */
export type ImportItem =
  | { kind: "message"; message: Message; usage?: Usage; occurredAt?: string; model?: string }
  | { kind: "compaction"; summary: Message; trigger: "auto" | "manual"; preTokens?: number; occurredAt?: string };

/** What an import repaired so the transcript is valid; all counts, no content. */
export interface ImportRepairs {
  /** Calls that never got a result and received a synthetic "[no result recorded]" error result. */
  syntheticResults: number;
  /** Tool results whose call is unknown, turned into user text messages (see TranscriptBuilder). */
  orphanResults: number;
  /** Tool call ids already used earlier in the session, renamed `<id>~<n>`. */
  renamedCalls: number;
  /** Message ids already used earlier in the session, renamed `<id>~<n>`. */
  renamedMessages: number;
  /** Messages with no text, image, reasoning or tool call, skipped. */
  skippedEmpty: number;
}

/**
 * One session read from a transcript file. `items` form a valid transcript for the session decider:
 * every result answers a waiting call and only the very last assistant message may have calls in flight.
 */
export interface ImportedSession {
  /** Stable id from the source (session id, agent id, instance id, task index…). */
  externalId: string;
  format: ImportFormat;
  title?: string;
  model?: string;
  /** The session this one is a subagent thread of. */
  parentExternalId?: string;
  items: ImportItem[];
  repairs: ImportRepairs;
}

/** Options of parseTranscript: a forced format, the file name (for detection, ids and errors), progress. */
export interface ParseOptions {
  format?: ImportFormat;
  fileName?: string;
  /** Called as lines or items are read, with how many are done out of the total. */
  onProgress?: (done: number, total: number) => void;
}
