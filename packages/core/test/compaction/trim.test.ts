import { derivedId, type Message, messageText, planTrim } from "@palimpsest/core";
import { assistantMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { countTokens, output } from "./view-builders.ts";

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`).join("\n");

describe("planTrim: insertion-time trimming", () => {
  it("given a tool output over the limit, then the copy keeps head and tail, the call id, and says how to get the rest", () => {
    const full = output("r1", "c1", lines(20_000), true);
    const tokens = countTokens(full);
    const plan = planTrim(full, tokens, { maxTokens: 2_000 }, countTokens);
    if (plan === undefined) throw new Error("expected a trim");
    expect(plan.message).toMatchObject({ role: "tool", toolCallId: "c1", isError: true });
    expect(plan.message.id).not.toBe(full.id);
    expect(plan.tokens).toBe(countTokens(plan.message));
    expect(plan.tokens).toBeLessThanOrEqual(2_000);
    const text = messageText(plan.message);
    expect(text.startsWith("line 0\nline 1\n")).toBe(true);
    expect(text.endsWith("line 19999")).toBe(true);
    expect(text).toContain(`${plan.elidedChars.toLocaleString("en-US")} characters`);
    expect(text).toContain("`palimpsest expand` returns the full text");
    expect(plan.elidedChars).toBeGreaterThan(0);
  });

  it("given an output at or under the limit, then it is kept as is", () => {
    const small = output("r1", "c1", lines(10));
    expect(planTrim(small, countTokens(small), { maxTokens: 2_000 }, countTokens)).toBeUndefined();
  });

  it("given a message that is not a tool output, then it is never trimmed", () => {
    const reply: Message = assistantMessage("a1", lines(20_000));
    expect(planTrim(reply, countTokens(reply), { maxTokens: 100 }, countTokens)).toBeUndefined();
  });

  it("given astral characters at the cut, then no half surrogate pair is kept", () => {
    const full = output("r1", "c1", "😀".repeat(10_000));
    const plan = planTrim(full, countTokens(full), { maxTokens: 1_000 }, countTokens);
    if (plan === undefined) throw new Error("expected a trim");
    expect(messageText(plan.message)).not.toMatch(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
    );
  });
});

describe("derivedId", () => {
  it("given a short id, then the new id is the id plus its tag", () => {
    expect(derivedId("r1", "trim")).toBe("r1~trim");
  });

  it("given ids too long to extend, then the new ids stay within 200 characters and stay distinct", () => {
    const a = derivedId(`${"x".repeat(199)}a`, "stub3");
    const b = derivedId(`${"x".repeat(199)}b`, "stub3");
    expect(a.length).toBeLessThanOrEqual(200);
    expect(b.length).toBeLessThanOrEqual(200);
    expect(a).not.toBe(b);
  });
});
