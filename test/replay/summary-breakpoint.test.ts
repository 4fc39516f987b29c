import { type CacheRules, initialCacheState, type LiveEntry, type Message, stepCache } from "@palimpsest/core";
import { promptMessages } from "@palimpsest/eval";
import { profileNamed } from "@palimpsest/runtime/testing";
import { describe, expect, it } from "vitest";

const text = (id: string, role: Message["role"], tokens: number, placedBy?: LiveEntry["placedBy"]): LiveEntry => {
  const entry: LiveEntry = { message: { id, role, content: [{ type: "text", text: id }] }, tokens, seq: 1 };
  return placedBy === undefined ? entry : { ...entry, placedBy };
};
const summary = (id: string, tokens: number) => text(id, "user", tokens, { compactionId: `c-${id}`, kind: "summary" });

/** The anthropic profile's cache rules, with or without the breakpoint on the last summary. */
function rules(summaryBreakpoint: boolean): CacheRules {
  const { cache, prices } = profileNamed("anthropic");
  return { ...cache, summaryBreakpoint, prices };
}

/** Cache reads of the request after a compaction that kept summary s1 and put s2 after it. */
function readAfterKeepingCompaction(summaryBreakpoint: boolean): number {
  const before = [
    text("sys", "system", 3_000),
    summary("s1", 4_000),
    text("u1", "user", 9_000),
    text("a1", "assistant", 9_000),
  ];
  const after = [text("sys", "system", 3_000), summary("s1", 4_000), summary("s2", 2_000), text("u2", "user", 500)];
  const first = stepCache(
    initialCacheState,
    { messages: promptMessages(before, summaryBreakpoint), completionTokens: 100 },
    rules(summaryBreakpoint),
  );
  return stepCache(
    first.state,
    { messages: promptMessages(after, summaryBreakpoint), completionTokens: 100 },
    rules(summaryBreakpoint),
  ).estimate.cachedTokens;
}

describe("the replay's prompt with a breakpoint on the last summary", () => {
  it("marks the last summary only, and only when the profile's cache rule says the agent puts one there", () => {
    const view = [text("sys", "system", 10), summary("s1", 10), summary("s2", 10), text("u", "user", 10)];
    expect(promptMessages(view, true).map((m) => m.breakpoint === true)).toStrictEqual([false, false, true, false]);
    expect(promptMessages(view, false).some((m) => m.breakpoint === true)).toBe(false);
    expect(promptMessages([text("u", "user", 10)], true).some((m) => m.breakpoint === true)).toBe(false);
  });

  it("after a compaction that keeps the earlier summary, the head through it is read from the cache; without the breakpoint nothing is", () => {
    expect(readAfterKeepingCompaction(true)).toBe(7_000);
    expect(readAfterKeepingCompaction(false)).toBe(0);
  });
});
