import { checkToolPairs, type ImportItem, type Message } from "@palimpsest/core";
import { NO_RESULT_TEXT, TranscriptBuilder } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

const text = (t: string) => [{ type: "text" as const, text: t }];
const user = (id: string, t = id): Message => ({ id, role: "user", content: text(t) });
const calls = (id: string, ...callIds: string[]): Message => ({
  id,
  role: "assistant",
  content: [],
  toolCalls: callIds.map((c) => ({ id: c, name: "bash", arguments: "{}" })),
});
const result = (id: string, callId: string, t = id): Message => ({
  id,
  role: "tool",
  content: text(t),
  toolCallId: callId,
});
const messagesOf = (items: ImportItem[]) => items.map((i) => (i.kind === "message" ? i.message : i.summary));
const build = (...messages: Message[]) => {
  const b = new TranscriptBuilder("s");
  for (const m of messages) b.add(m);
  return b.finish({ externalId: "s", format: "openai" });
};

describe("TranscriptBuilder repairs", () => {
  it("gives an unanswered call a synthetic error result right after its siblings' results", () => {
    const s = build(user("u1"), calls("a1", "c1", "c2"), result("t1", "c1"), user("u2"));
    const ms = messagesOf(s.items);
    expect(ms.map((m) => m.id)).toEqual(["u1", "a1", "t1", "s:no-result:c2", "u2"]);
    expect(ms[3]).toMatchObject({ role: "tool", toolCallId: "c2", isError: true, metadata: { synthetic: true } });
    expect(ms[3]?.content).toEqual(text(NO_RESULT_TEXT));
    expect(s.repairs.syntheticResults).toBe(1);
    expect(checkToolPairs(ms)).toEqual([]);
  });

  it("leaves calls in flight at the very end", () => {
    const s = build(user("u1"), calls("a1", "c1"));
    expect(s.items).toHaveLength(2);
    expect(s.repairs.syntheticResults).toBe(0);
  });

  it("turns a result with an unknown call into a user message placed after the current results", () => {
    const s = build(
      user("u1"),
      calls("a1", "c1", "c2"),
      result("t1", "c1"),
      result("x", "ghost", "lost"),
      result("t2", "c2"),
    );
    const ms = messagesOf(s.items);
    expect(ms.map((m) => m.id)).toEqual(["u1", "a1", "t1", "t2", "x"]);
    expect(ms[4]).toMatchObject({
      role: "user",
      metadata: { orphanToolResult: true, originalToolCallId: "ghost" },
    });
    expect(ms[4]?.content).toEqual([...text("[tool result for unknown call ghost]"), ...text("lost")]);
    expect(ms[4]?.toolCallId).toBeUndefined();
    expect(s.repairs.orphanResults).toBe(1);
    expect(checkToolPairs(ms)).toEqual([]);
  });

  it("treats a second result for an answered call as an orphan", () => {
    const s = build(calls("a1", "c1"), result("t1", "c1"), result("t1b", "c1"));
    expect(messagesOf(s.items).map((m) => m.role)).toEqual(["assistant", "tool", "user"]);
  });

  it("renames reused tool call ids and matches results to the waiting call", () => {
    const s = build(
      calls("a1", "c1"),
      result("t1", "c1"),
      calls("a2", "c1", "c1"),
      result("t2", "c1"),
      result("t3", "c1"),
    );
    const ms = messagesOf(s.items);
    expect(ms[2]?.toolCalls?.map((c) => c.id)).toEqual(["c1~2", "c1~3"]);
    expect(ms[2]?.metadata).toEqual({ renamedToolCalls: { "c1~2": "c1", "c1~3": "c1" } });
    expect(ms.slice(3).map((m) => m.toolCallId)).toEqual(["c1~2", "c1~3"]);
    expect(ms[3]?.metadata).toEqual({ originalToolCallId: "c1" });
    expect(s.repairs.renamedCalls).toBe(2);
    expect(checkToolPairs(ms)).toEqual([]);
  });

  it("renames reused message ids and skips empty messages", () => {
    const s = build(user("m"), { id: "e", role: "assistant", content: text("") }, user("m", "again"));
    const ms = messagesOf(s.items);
    expect(ms.map((m) => m.id)).toEqual(["m", "m~2"]);
    expect(ms[1]?.metadata).toEqual({ originalId: "m" });
    expect(s.repairs).toMatchObject({ renamedMessages: 1, skippedEmpty: 1 });
  });

  it("closes open calls before a compaction", () => {
    const b = new TranscriptBuilder("s");
    b.add(calls("a1", "c1"));
    b.addCompaction(user("sum", "summary"), "manual", 1234);
    const items = b.finish({ externalId: "s", format: "claude-code" }).items;
    expect(items.map((i) => i.kind)).toEqual(["message", "message", "compaction"]);
    expect(items[2]).toMatchObject({ kind: "compaction", trigger: "manual", preTokens: 1234 });
  });
});
