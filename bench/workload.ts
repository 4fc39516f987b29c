/**
 * Deterministic agent transcripts for the benchmarks: user → assistant (tool call) → tool result →
 * assistant cycles with 1-4 KB of text per message, written through the EventStore in batches.
 */
import type { DomainEvent, EventStore, Message, SnapshotStore } from "@palimpsest/core";
import { loadSession, saveSnapshot } from "@palimpsest/runtime";

const WORDS = ["const", "value", "return", "await", "session", "compact", "token", "error", "result", "handler"];

/** Text of 1,024 to 4,095 characters, different for every index (code-, log- and prose-like lines). */
export function messageText(i: number): string {
  const length = 1024 + ((i * 769) % 3072);
  let text = "";
  for (let line = 0; text.length < length; line++) {
    const word = WORDS[(i + line) % WORDS.length] ?? "x";
    text += `${String(line + 1).padStart(4)}  ${word} item_${i}_${line} = compute(${line * 37}, "${word}");\n`;
  }
  return text.slice(0, length);
}

/** The `i`-th message of a session: a four-message cycle whose tool call is always answered next. */
export function benchMessage(i: number): Message {
  return cycleMessage(i, "m", messageText(i));
}

/**
 * The `i`-th message (id `<prefix>-<i>`) of a four-message cycle with `text`: a user message, an
 * assistant calling a tool, the tool's result, an assistant answer.
 */
export function cycleMessage(i: number, prefix: string, text: string): Message {
  const id = `${prefix}-${i}`;
  const call = `call-${prefix}-${i - (i % 4) + 1}`;
  const content = [{ type: "text" as const, text }];
  switch (i % 4) {
    case 0:
      return { id, role: "user", content };
    case 1:
      return { id, role: "assistant", content, toolCalls: [{ id: call, name: "run", arguments: '{"cmd":"ls"}' }] };
    case 2:
      return { id, role: "tool", toolCallId: call, name: "run", content };
    default:
      return { id, role: "assistant", content };
  }
}

/** message.appended events for messages `from` to `to - 1`, with chars/4 as their token count. */
export function messageEvents(from: number, to: number): DomainEvent[] {
  const events: DomainEvent[] = [];
  for (let i = from; i < to; i++) {
    const message = benchMessage(i);
    events.push({ type: "message.appended", data: { message, tokens: Math.ceil(messageText(i).length / 4) } });
  }
  return events;
}

/** The first event of every bench session. */
export const STARTED: DomainEvent = {
  type: "session.started",
  data: { model: "gpt-4o", encoding: "o200k_base", contextWindow: 128_000 },
};

/** How a bench session is built. */
export interface BuildOptions {
  messages: number;
  /** Summarize the messages of each completed tenth of the session (all but its last cycle). */
  compact: boolean;
  /** Save a snapshot right after each compaction, as the runtime does (the tail is replayed on top of it). */
  snapshotAfterCompactions?: boolean;
  /** Messages appended after the last cycle, with no compaction (default none). */
  tail?: number;
  batch?: number;
}

/** Writes a whole session through `store.append` in batches (never message by message). */
export async function buildSession(
  store: EventStore & SnapshotStore,
  sessionId: string,
  options: BuildOptions,
): Promise<void> {
  const { messages, compact, snapshotAfterCompactions = false, tail = 0, batch = 500 } = options;
  const tenth = Math.max(8, Math.floor(messages / 40) * 4);
  let version = (await store.append(sessionId, [STARTED], { expectedVersion: "no-stream" })).nextExpectedVersion;
  let viewVersion = 0;
  const append = async (events: DomainEvent[], view?: number) => {
    const result = await store.append(sessionId, events, {
      expectedVersion: version,
      ...(view === undefined ? {} : { viewVersion: { expected: view } }),
    });
    version = result.nextExpectedVersion;
  };
  const total = messages + tail;
  for (let i = 0; i < total; ) {
    const stops = [total, i + batch];
    if (compact && i < messages) stops.push((Math.floor(i / tenth) + 1) * tenth);
    const next = Math.min(...stops);
    await append(messageEvents(i, next));
    i = next;
    if (compact && i <= messages && i % tenth === 0) {
      await append([summaryEvent(i - tenth, i - 4, viewVersion)], viewVersion++);
      if (snapshotAfterCompactions) await saveSnapshot(store, (await loadSession(store, sessionId, false)).state);
    }
  }
}

/** A summary compaction of messages `from` to `to - 1` (whole cycles, so no tool pair is split). */
function summaryEvent(from: number, to: number, viewVersion: number): DomainEvent {
  const targets = Array.from({ length: to - from }, (_, k) => `m-${from + k}`);
  const text = `Summary of messages ${from}-${to - 1}:\n${messageText(from).slice(0, 1500)}`;
  return {
    type: "messages.superseded",
    data: {
      compactionId: `c-${from}`,
      targets,
      replacements: [
        { kind: "summary", message: { id: `s-${from}`, role: "user", content: [{ type: "text", text }] }, tokens: 400 },
      ],
      mode: "summary",
      basis: { viewVersion },
      producer: { policy: "bench" },
      stats: { tokensBefore: 0, tokensAfter: 0 },
      trigger: "auto",
    },
  };
}
