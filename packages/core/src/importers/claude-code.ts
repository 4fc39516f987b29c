import type { z } from "zod";
import { definedFields } from "../defined-fields.ts";
import { isObject, type JsonObject } from "../input/json-object.ts";
import type { Message } from "../messages/message.ts";
import {
  type ClaudeEntry,
  claudeContent,
  claudeUsage,
  mergeAssistantBlocks,
  userLineMessages,
} from "./claude-code-blocks.ts";
import { fileStem, textDigest } from "./json-fields.ts";
import { inputPath, invalidInput, parseJsonLines } from "./json-input.ts";
import { flagField, numberField, rawField, read, recordOf, textField } from "./source-fields.ts";
import { TranscriptBuilder } from "./transcript-builder.ts";
import type { TranscriptFormat } from "./transcript-format.ts";
import type { ImportedSession, ParseOptions } from "./types.ts";

/** One line of a Claude Code session file, the fields the importer reads. */
const ClaudeLine = recordOf({
  type: textField,
  subtype: textField,
  summary: textField,
  sessionId: textField,
  slug: textField,
  uuid: textField,
  parentUuid: textField,
  agentId: textField,
  isSidechain: flagField,
  isCompactSummary: flagField,
  timestamp: textField,
  compactMetadata: recordOf({ preTokens: numberField, trigger: textField }),
  message: recordOf({ id: textField, model: textField, content: rawField, usage: rawField }),
});
type ClaudeLine = z.output<typeof ClaudeLine>;

/** What a `compact_boundary` line says about the compaction its summary line completes. */
type Boundary = ClaudeLine["compactMetadata"];

/** One step of a thread: a message (assistant lines merged) or a compaction. */
export type Step =
  | { kind: "message"; entry: ClaudeEntry }
  | { kind: "compaction"; summary: Message; trigger: "auto" | "manual"; preTokens?: number; occurredAt?: string };

/** One thread of a Claude Code file as read so far: its steps, and where they last changed. */
export interface ClaudeThread {
  externalId: string;
  parentExternalId?: string;
  steps: Step[];
  /** Each assistant message by its id, with the index of its step (later lines with the id merge into it). */
  assistants: Map<string, { entry: ClaudeEntry; step: number }>;
  boundary: Boundary | undefined;
  model?: string;
  /** The first step added or changed since `changedFrom` was last reset (Infinity: none). */
  changedFrom: number;
}

const SUBAGENT_FILE = /(?:^|[\\/])agent-([^\\/]+)\.jsonl$/;

/**
 * Parses a Claude Code session JSONL (the `~/.claude/projects` files, old and new variants). Keeps
 * user and assistant lines, merges assistant lines sharing `message.id` (usage from the last line),
 * and turns a `compact_boundary` line plus its `isCompactSummary` user line into a compaction item.
 * The main thread is one session (id = sessionId); each sidechain thread (lines with one `agentId`, or
 * linked by `parentUuid` from a root whose parent is not a sidechain line) is its own session whose
 * parent is the main one. A `subagents/agent-<id>.jsonl` file thus yields the agent's session alone.
 */
export function parseClaudeCode(text: string, options: ParseOptions = {}): ImportedSession[] {
  const { fileName, onProgress } = options;
  const reader = new ClaudeCodeReader(fileName, () => `claude-${textDigest(text)}`);
  for (const { value, line } of parseJsonLines(text, fileName, onProgress)) reader.read(value, line);
  return reader.threads().map((thread) => buildSession(thread, reader.titleOf(thread)));
}

/**
 * Reads a Claude Code session file a line at a time, as parseClaudeCode does: after any number of lines,
 * its threads are those of the lines read so far (parseClaudeCode builds each into a session).
 */
export class ClaudeCodeReader {
  readonly #fileName: string | undefined;
  readonly #fileAgent: string | undefined;
  /** The id of the main thread when no line names the session and the file has no name. */
  readonly #fallbackId: () => string;
  readonly #threads = new Map<string, ClaudeThread>();
  readonly #threadOfUuid = new Map<string, string>();
  #sessionId: string | undefined;
  #title: string | undefined;

  constructor(fileName: string | undefined, fallbackId: () => string) {
    this.#fileName = fileName;
    this.#fileAgent = fileName === undefined ? undefined : SUBAGENT_FILE.exec(fileName)?.[1];
    this.#fallbackId = fallbackId;
  }

  /** Reads one parsed line (its 1-based number names it in errors). ValidationError for a line it cannot read. */
  read(raw: unknown, line: number): void {
    const path = inputPath(this.#fileName, line);
    if (!isObject(raw)) throw invalidInput(path, "a line must be a JSON object");
    const value = read(ClaudeLine, raw);
    if (value.type === "summary") {
      this.#title ??= value.summary;
      return;
    }
    this.#sessionId ??= value.sessionId;
    this.#title ??= value.slug;
    const { uuid } = value;
    if (uuid !== undefined && this.#threadOfUuid.has(uuid)) return;
    const key = threadKey(value, this.#threadOfUuid, this.#fileAgent);
    if (uuid !== undefined) this.#threadOfUuid.set(uuid, key);
    if (value.type !== "user" && value.type !== "assistant" && value.type !== "system") return;
    const id = uuid ?? `line-${line}`;
    let thread = this.#threads.get(key);
    if (thread === undefined) {
      thread = newThread(key, value, this.#sessionId ?? fileStem(this.#fileName) ?? this.#fallbackId());
      this.#threads.set(key, thread);
    }
    if (value.type === "system") {
      if (value.subtype === "compact_boundary") thread.boundary = value.compactMetadata;
    } else if (value.type === "assistant") addAssistantLine(thread, value, id, path);
    else if (value.isCompactSummary === true) addCompaction(thread, value, id, path);
    else
      for (const message of userLineMessages(value.message.content, id, path))
        pushStep(thread, { kind: "message", entry: { message, ...timeOf(value) } });
  }

  /** The threads read so far, the main thread first, the others in the order their first line came. */
  threads(): ClaudeThread[] {
    return [...this.#threads.values()].sort(
      (a, b) => Number(b.parentExternalId === undefined) - Number(a.parentExternalId === undefined),
    );
  }

  /** The session title a thread's session takes: the file's, for the main thread only. */
  titleOf(thread: ClaudeThread): string | undefined {
    return thread.parentExternalId === undefined ? this.#title : undefined;
  }
}

function threadKey(line: ClaudeLine, threadOfUuid: Map<string, string>, fileAgent: string | undefined): string {
  const agent = line.agentId ?? (line.isSidechain === true ? fileAgent : undefined);
  if (agent !== undefined) return `agent:${agent}`;
  if (line.isSidechain !== true) return "main";
  const parent = threadOfUuid.get(line.parentUuid ?? "");
  return parent !== undefined && parent !== "main" ? parent : `side:${line.uuid ?? ""}`;
}

function newThread(key: string, line: ClaudeLine, sessionId: string): ClaudeThread {
  const base = { steps: [], assistants: new Map(), boundary: undefined, changedFrom: Number.POSITIVE_INFINITY };
  if (key === "main") return { ...base, externalId: sessionId };
  const externalId = key.startsWith("agent:") ? key.slice("agent:".length) : `${sessionId}:sidechain:${line.uuid}`;
  return { ...base, externalId, parentExternalId: sessionId };
}

function addAssistantLine(thread: ClaudeThread, line: ClaudeLine, id: string, path: string): void {
  const { message } = line;
  const key = message.id ?? id;
  const known = thread.assistants.get(key);
  let entry: ClaudeEntry;
  if (known === undefined) {
    entry = { message: { id: key, role: "assistant", content: [] }, ...timeOf(line) };
    thread.assistants.set(key, { entry, step: thread.steps.length });
    pushStep(thread, { kind: "message", entry });
  } else {
    entry = known.entry;
    thread.changedFrom = Math.min(thread.changedFrom, known.step);
  }
  mergeAssistantBlocks(entry.message, message.content, path);
  const usage = claudeUsage(message.usage);
  if (usage !== undefined) entry.usage = usage;
  const { model } = message;
  if (model !== undefined && model !== "<synthetic>") {
    thread.model ??= model;
    entry.model = model;
  }
}

function addCompaction(thread: ClaudeThread, line: ClaudeLine, id: string, path: string): void {
  const meta: Boundary = thread.boundary ?? {};
  thread.boundary = undefined;
  const summary: Message = { id, role: "user", content: claudeContent(line.message.content, path) };
  const { preTokens } = meta;
  const trigger = meta.trigger === "manual" ? "manual" : "auto";
  pushStep(thread, {
    kind: "compaction",
    summary,
    trigger,
    ...definedFields({ preTokens }),
    ...timeOf(line),
  });
}

/** The line's `timestamp` as `{ occurredAt }` when it is a readable time, else nothing. */
function timeOf(line: ClaudeLine): { occurredAt?: string } {
  const raw = line.timestamp;
  const ms = raw === undefined ? Number.NaN : Date.parse(raw);
  return Number.isNaN(ms) ? {} : { occurredAt: new Date(ms).toISOString() };
}

/** Adds a step to the thread, marking it changed from there. */
function pushStep(thread: ClaudeThread, step: Step): void {
  thread.changedFrom = Math.min(thread.changedFrom, thread.steps.length);
  thread.steps.push(step);
}

/** Gives one step of a thread to its transcript builder. */
export function buildStep(builder: TranscriptBuilder, step: Step): void {
  if (step.kind === "compaction") builder.addCompaction(step.summary, step.trigger, step.preTokens, step.occurredAt);
  else builder.add(step.entry.message, step.entry.usage, step.entry.occurredAt, step.entry.model);
}

/** The session of a thread with `items` (and the builder's repairs): what parseClaudeCode returns for it. */
export function sessionOf(
  thread: ClaudeThread,
  title: string | undefined,
  items: ImportedSession["items"],
  repairs: ImportedSession["repairs"],
): ImportedSession {
  const { externalId, parentExternalId, model } = thread;
  return {
    externalId,
    format: "claude-code",
    ...definedFields({ title, model, parentExternalId }),
    items,
    repairs,
  };
}

function buildSession(thread: ClaudeThread, title: string | undefined): ImportedSession {
  const builder = new TranscriptBuilder(thread.externalId);
  for (const step of thread.steps) buildStep(builder, step);
  const { items, repairs } = builder.finish({ externalId: thread.externalId, format: "claude-code" });
  return sessionOf(thread, title, items, repairs);
}

/** The `type`s of Claude Code's session lines. */
const CLAUDE_LINE_TYPES = new Set([
  "user",
  "assistant",
  "system",
  "summary",
  "progress",
  "file-history-snapshot",
  "queue-operation",
]);

/** True for a JSON object shaped as a Claude Code line: one of its line `type`s, and no chat `role`. */
export function isClaudeCodeLine(value: JsonObject): boolean {
  return typeof value.type === "string" && CLAUDE_LINE_TYPES.has(value.type) && !("role" in value);
}

/** A Claude Code session log (`~/.claude/projects/…/*.jsonl`). */
export const claudeCodeFormat: TranscriptFormat<"claude-code"> = {
  name: "claude-code",
  summary: "a Claude Code session log (JSON lines, ~/.claude/projects/…), subagent threads included",
  extensions: [".jsonl"],
  jsonLinesOnly: true,
  provider: "anthropic",
  recognize: { object: (value) => !Array.isArray(value.history) && isClaudeCodeLine(value) },
  parse: parseClaudeCode,
};
