import { ValidationError } from "../errors.ts";
import type { Usage } from "../events/event-data.ts";
import { describeIssues } from "../input/describe-issues.ts";
import { isEmptyMessage, type Message, MessageSchema } from "../messages/message.ts";
import type { ImportedSession, ImportItem, ImportRepairs } from "./types.ts";

interface PendingCall {
  sourceId: string;
  id: string;
  name: string;
  answered: boolean;
}

/** The content of the synthetic result given to a call that never got one. */
export const NO_RESULT_TEXT = "[no result recorded]";

/**
 * Turns source messages, in order, into a transcript the session decider accepts, repairing
 * deterministically and marking every repair in `message.metadata`:
 * - a call without a result gets a synthetic error result "[no result recorded]" (`synthetic: true`)
 *   right after its siblings' results, unless it is in flight at the very end of the transcript;
 * - a tool result whose call is unknown (or already answered) is kept, not dropped: it becomes a user
 *   text message "[tool result for unknown call <id>]" plus its content (`orphanToolResult: true`),
 *   placed after the current batch of results so it cannot split a call from its results;
 * - a tool call id or message id already used in the session is renamed `<id>~<n>` (n = 2, 3…),
 *   the original kept in metadata; results are matched to the oldest waiting call with the source id;
 * - empty messages (no text, image, reasoning or tool call) are skipped.
 * Each item keeps the source time given with it; a repair (a synthetic result) takes the latest time seen.
 */
export class TranscriptBuilder {
  readonly items: ImportItem[] = [];
  readonly repairs: ImportRepairs = {
    syntheticResults: 0,
    orphanResults: 0,
    renamedCalls: 0,
    renamedMessages: 0,
    skippedEmpty: 0,
  };
  private pending: PendingCall[] = [];
  private deferred: { message: Message; occurredAt: string | undefined }[] = [];
  /** The latest source time seen, given to repairs that have none of their own. */
  private time: string | undefined;
  private readonly callIds = new Set<string>();
  private readonly messageIds = new Set<string>();
  /** While a preview runs: how to take back each id it took. */
  private journal: (() => void)[] | undefined;

  constructor(readonly externalId: string) {}

  /** Adds a source message (tool results carry the source call id) with the usage, time and model reported on it. */
  add(message: Message, usage?: Usage | undefined, occurredAt?: string | undefined, model?: string): void {
    if (message.role === "tool") {
      this.addResult(message, occurredAt);
    } else if (isEmptyMessage(message)) {
      this.repairs.skippedEmpty++;
    } else {
      this.closeBatch();
      this.push(message.role === "assistant" ? this.renameCalls(message) : message, usage, occurredAt, model);
    }
  }

  /** Adds a compaction: the summary supersedes everything before it, so open calls are closed first. */
  addCompaction(summary: Message, trigger: "auto" | "manual", preTokens?: number, occurredAt?: string): void {
    this.closeBatch();
    const item: ImportItem = { kind: "compaction", summary: this.checked(this.uniqueId(summary)), trigger };
    if (preTokens !== undefined) item.preTokens = preTokens;
    this.stamp(item, occurredAt);
    this.items.push(item);
  }

  /** Ends the transcript; calls still waiting at the very end stay in flight. */
  finish(session: Omit<ImportedSession, "items" | "repairs">): ImportedSession {
    if (this.deferred.length > 0) this.closeBatch();
    return { ...session, items: this.items, repairs: this.repairs };
  }

  /**
   * The items `build` adds (by calling `add` and `addCompaction` on this builder), and those `finish`
   * would add after them, without keeping any of it: the builder is left as it was, to go on from there.
   */
  preview(build: (builder: this) => void): ImportItem[] {
    const length = this.items.length;
    const { pending, deferred, time } = this;
    const repairs = { ...this.repairs };
    const journal: (() => void)[] = [];
    this.pending = pending.map((call) => ({ ...call }));
    this.deferred = [...deferred];
    this.journal = journal;
    try {
      build(this);
      if (this.deferred.length > 0) this.closeBatch();
      return this.items.slice(length);
    } finally {
      this.journal = undefined;
      for (const undo of journal) undo();
      this.items.length = length;
      Object.assign(this.repairs, repairs);
      this.pending = pending;
      this.deferred = deferred;
      this.time = time;
    }
  }

  private addResult(message: Message, occurredAt: string | undefined): void {
    const sourceId = message.toolCallId ?? "";
    const call = this.pending.find((c) => c.sourceId === sourceId && !c.answered);
    if (call !== undefined) {
      call.answered = true;
      const result: Message = { ...message, toolCallId: call.id, name: message.name ?? call.name };
      this.push(
        call.id === sourceId ? result : withMetadata(result, { originalToolCallId: sourceId }),
        undefined,
        occurredAt,
      );
      return;
    }
    this.repairs.orphanResults++;
    const { toolCallId: _dropped, isError, ...rest } = message;
    const orphan: Message = withMetadata(
      {
        ...rest,
        role: "user",
        content: [{ type: "text", text: `[tool result for unknown call ${sourceId}]` }, ...message.content],
      },
      { orphanToolResult: true, originalToolCallId: sourceId, ...(isError === true ? { isError } : {}) },
    );
    if (this.pending.some((c) => !c.answered)) this.deferred.push({ message: orphan, occurredAt });
    else {
      this.closeBatch();
      this.push(orphan, undefined, occurredAt);
    }
  }

  private closeBatch(): void {
    for (const call of this.pending) {
      if (call.answered) continue;
      this.repairs.syntheticResults++;
      this.push({
        id: `${this.externalId}:no-result:${call.id}`,
        role: "tool",
        content: [{ type: "text", text: NO_RESULT_TEXT }],
        toolCallId: call.id,
        name: call.name,
        isError: true,
        metadata: { synthetic: true },
      });
    }
    this.pending = [];
    const deferred = this.deferred;
    this.deferred = [];
    for (const { message, occurredAt } of deferred) this.push(message, undefined, occurredAt);
  }

  private renameCalls(message: Message): Message {
    if (message.toolCalls === undefined || message.toolCalls.length === 0) return message;
    const renamed: Record<string, string> = {};
    const toolCalls = message.toolCalls.map((call) => {
      const id = this.freshId(call.id, this.callIds);
      this.pending.push({ sourceId: call.id, id, name: call.name, answered: false });
      if (id === call.id) return call;
      this.repairs.renamedCalls++;
      renamed[id] = call.id;
      return { ...call, id };
    });
    const out = { ...message, toolCalls };
    return Object.keys(renamed).length > 0 ? withMetadata(out, { renamedToolCalls: renamed }) : out;
  }

  private push(message: Message, usage?: Usage, occurredAt?: string, model?: string): void {
    const item: ImportItem = { kind: "message", message: this.checked(this.uniqueId(message)) };
    if (usage !== undefined) item.usage = usage;
    if (model !== undefined) item.model = model;
    this.stamp(item, occurredAt);
    this.items.push(item);
  }

  /** Gives the item its source time, or the latest one seen when it has none. */
  private stamp(item: ImportItem, occurredAt: string | undefined): void {
    if (occurredAt !== undefined) this.time = occurredAt;
    if (this.time !== undefined) item.occurredAt = this.time;
  }

  private uniqueId(message: Message): Message {
    const id = this.freshId(message.id, this.messageIds);
    if (id === message.id) return message;
    this.repairs.renamedMessages++;
    return withMetadata({ ...message, id }, { originalId: message.id });
  }

  private freshId(id: string, used: Set<string>): string {
    let candidate = id;
    for (let n = 2; used.has(candidate); n++) candidate = `${id}~${n}`;
    used.add(candidate);
    this.journal?.push(() => used.delete(candidate));
    return candidate;
  }

  private checked(message: Message): Message {
    const parsed = MessageSchema.safeParse(message);
    if (!parsed.success) {
      throw new ValidationError(`imported message ${message.id} is invalid`, describeIssues(parsed.error), {
        cause: parsed.error,
        path: message.id,
      });
    }
    return message;
  }
}

function withMetadata(message: Message, extra: Record<string, unknown>): Message {
  return { ...message, metadata: { ...message.metadata, ...extra } };
}
