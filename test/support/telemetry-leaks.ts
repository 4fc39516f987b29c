import type { StoredEvent } from "@palimpsest/core";

/** Shortest run of transcript text that, found in telemetry, counts as leaked content. */
export const LEAK_CHARS = 20;

/**
 * Invariant 7: the runs of LEAK_CHARS characters that any string in the telemetry `lines` (keys and values,
 * at any depth) shares with any message text in `log` (appended messages and replacements). Empty means
 * the telemetry is content-free.
 */
export function telemetryLeaks(lines: readonly unknown[], log: readonly StoredEvent[]): string[] {
  const windows = new Set<string>();
  for (const s of strings(lines)) {
    for (let i = 0; i + LEAK_CHARS <= s.length; i++) windows.add(s.slice(i, i + LEAK_CHARS));
  }
  const leaks = new Set<string>();
  for (const text of messageTexts(log)) {
    for (let i = 0; i + LEAK_CHARS <= text.length; i++) {
      const run = text.slice(i, i + LEAK_CHARS);
      if (windows.has(run)) leaks.add(run);
    }
  }
  return [...leaks];
}

function* messageTexts(log: readonly StoredEvent[]): Generator<string> {
  for (const event of log) {
    const messages =
      event.type === "message.appended"
        ? [event.data.message]
        : event.type === "messages.superseded"
          ? event.data.replacements.map((r) => r.message)
          : [];
    for (const m of messages) {
      for (const part of m.content) if (part.type === "text") yield part.text;
      for (const call of m.toolCalls ?? []) yield call.arguments;
    }
  }
}

function* strings(value: unknown): Generator<string> {
  if (typeof value === "string") yield value;
  else if (Array.isArray(value)) for (const v of value) yield* strings(v);
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      yield k;
      yield* strings(v);
    }
  }
}
