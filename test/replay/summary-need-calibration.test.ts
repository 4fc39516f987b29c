/**
 * cost-optimal's estimate of what a summary needs to keep every fact of a span (summaryNeed) against what
 * the offline summary writes for that span given all the room it wants: within a tenth or so on spans of
 * every generated shape (the seeds of the tuning set), so a plan given room for its facts keeps them.
 */
import { type LiveEntry, type Message, OfflineSummarizer } from "@palimpsest/core";
import { estimateTokens, summaryNeed } from "@palimpsest/core/testing";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { describe, expect, it } from "vitest";
import { type SessionKind, shapedSession } from "./shaped-session.ts";

const KINDS: SessionKind[] = ["tool-heavy", "chatty", "idle-gaps"];

/** Messages `from` to `to` of `messages`, widened so that no tool result is parted from its call. */
function span(messages: readonly Message[], from: number, to: number): Message[] {
  let a = from;
  while (a < messages.length && messages[a]?.role === "tool") a++;
  let b = Math.min(messages.length, to);
  while (b < messages.length && messages[b]?.role === "tool") b++;
  return messages.slice(a, b);
}

describe("what a summary needs, estimated against what the offline summary writes", () => {
  it("is within 15% on spans of 20 to 300 messages of each generated shape", async () => {
    const counter = await createTokenCounter("o200k_base");
    const summarizer = new OfflineSummarizer();
    for (const kind of KINDS) {
      const session = shapedSession({ kind, steps: 200, seed: 1 });
      const messages = session.items.flatMap((i) => (i.kind === "message" ? [i.message] : []));
      for (const [from, length] of [
        [0, 20],
        [10, 60],
        [50, 120],
        [0, 300],
      ] as const) {
        const messagesOf = span(messages, from, from + length);
        const entries: LiveEntry[] = messagesOf.map((message) => ({
          message,
          tokens: counter.countMessage(message),
          seq: 1,
        }));
        const { text } = await summarizer.summarize({ messages: messagesOf, maxOutputTokens: 1_000_000 });
        const ratio = estimateTokens(text) / summaryNeed(entries).tokens;
        expect(ratio, `${kind} [${from}, ${from + length})`).toBeGreaterThan(0.85);
        expect(ratio, `${kind} [${from}, ${from + length})`).toBeLessThan(1.15);
      }
    }
  });
});
