import { buildStep, ClaudeCodeReader, type ClaudeThread, sessionOf } from "./claude-code.ts";
import { TranscriptBuilder } from "./transcript-builder.ts";
import type { ImportedSession } from "./types.ts";

/** What an incremental parse gives of one thread: its session with the items from `start` on. */
export interface ThreadItems {
  /** The thread's session as parseClaudeCode gives it now, `items` holding only those from `start` on. */
  session: ImportedSession;
  /** The index (in the session's whole item list) of `session.items[0]`. */
  start: number;
  /** How many of the thread's items are final: no line read later can change them. */
  final: number;
}

/** The builder of one thread: the steps it was given, all final (no line can merge into them any more). */
interface BuiltThread {
  builder: TranscriptBuilder;
  built: number;
}

/**
 * A Claude Code file parsed a line at a time, handing out only what is new: after each batch of lines,
 * each thread's items from a given index on, equal (deep-equal, fresh objects) to that part of what
 * parseClaudeCode gives for the lines read so far. Each step is given to its thread's builder once,
 * when it is final; the open tail (from a thread's last assistant message, whose next block may still
 * come, to its end) is built anew on each call and taken back. A line that changes a step already built (an
 * assistant block arriving after other lines) makes that thread build again from its first step, and its
 * items are then handed out from 0.
 */
export class IncrementalClaudeCode {
  readonly #reader: ClaudeCodeReader;
  readonly #built = new Map<ClaudeThread, BuiltThread>();

  /** `fileName` as parseClaudeCode takes it (it names the main thread when no line does, and subagent files). */
  constructor(fileName: string) {
    this.#reader = new ClaudeCodeReader(fileName, () => fileName);
  }

  /** Reads one parsed line (its 1-based number). ValidationError, as parseClaudeCode, for a line it cannot read. */
  read(raw: unknown, line: number): void {
    this.#reader.read(raw, line);
  }

  /**
   * Every thread (the main one first, as parseClaudeCode orders them) with its items from `from(externalId)`
   * on, or from 0 for a thread whose built steps a line changed. ValidationError, as parseClaudeCode, for
   * a message the builder refuses.
   */
  items(from: (externalId: string) => number): ThreadItems[] {
    return this.#reader.threads().map((thread) => {
      let built = this.#built.get(thread);
      let start = from(thread.externalId);
      if (built === undefined || thread.changedFrom < built.built) {
        built = { builder: new TranscriptBuilder(thread.externalId), built: 0 };
        this.#built.set(thread, built);
        start = 0;
      }
      const open = openTail(thread);
      while (built.built < open) buildStep(built.builder, thread.steps[built.built++] as ClaudeThread["steps"][number]);
      thread.changedFrom = Number.POSITIVE_INFINITY;
      const { builder } = built;
      const final = builder.items.length;
      const tail = builder.preview((b) => {
        for (const step of thread.steps.slice(open)) buildStep(b, step);
      });
      start = Math.min(start, final);
      const items = structuredClone([...builder.items.slice(start), ...tail]);
      const session = sessionOf(thread, this.#reader.titleOf(thread), items, { ...builder.repairs });
      return { session, start, final };
    });
  }
}

/**
 * Where a thread's open tail starts: at its last assistant message, which may still grow (Claude Code
 * writes a message's next tool call after the results of the ones before it), else at its end.
 */
function openTail(thread: ClaudeThread): number {
  for (let i = thread.steps.length - 1; i >= 0; i--) {
    const step = thread.steps[i] as ClaudeThread["steps"][number];
    if (step.kind === "message" && step.entry.message.role === "assistant") return i;
  }
  return thread.steps.length;
}
