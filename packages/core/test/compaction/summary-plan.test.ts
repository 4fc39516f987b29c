import { chooseSummaryRole, type LiveEntry, planSummary, summaryReplacementFor } from "@palimpsest/core";
import {
  formatSummaryMessage,
  recallNote,
  SUMMARY_PREFIX,
  SUMMARY_SUFFIX,
  stripSummaryNote,
} from "@palimpsest/core/testing";
import { assistantMessage, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { callTools, countTokens, ids, live, output, policyInput, system } from "./view-builders.ts";

/** A long middle of alternating turns, then a short tail ending with a user question and a reply. */
function middleAndTail(prefix: string, count: number): LiveEntry[] {
  return [
    ...Array.from({ length: count }, (_, i) =>
      live(i % 2 === 0 ? userMessage(`${prefix}u${i}`, "q") : assistantMessage(`${prefix}a${i}`, "r"), 5_000),
    ),
    live(userMessage("last-u", "latest question"), 100),
    live(assistantMessage("last-a", "latest reply"), 100),
  ];
}

describe("summary role", () => {
  it("given the conversation start (after the system prompt), then the summary is a user turn", () => {
    expect(chooseSummaryRole(undefined)).toBe("user");
    expect(chooseSummaryRole(system("sys"))).toBe("user");
  });

  it("given a user turn or tool results before it, then the summary is an assistant turn", () => {
    expect(chooseSummaryRole(userMessage("u", "x"))).toBe("assistant");
    expect(chooseSummaryRole(output("r", "c", "x"))).toBe("assistant");
  });

  it("given an assistant turn before it, then the summary is a user turn", () => {
    expect(chooseSummaryRole(assistantMessage("a", "x"))).toBe("user");
  });

  it("given the first compaction with a head ending on a user turn, then the plan picks assistant", () => {
    const view = [
      live(system("sys"), 100),
      live(userMessage("u1", "a"), 100),
      live(assistantMessage("a1", "b"), 100),
      live(userMessage("u2", "c"), 100),
      ...middleAndTail("m", 6),
    ];
    expect(planSummary(policyInput(view), "test")).toMatchObject({ kind: "summary", role: "assistant" });
  });

  it("given a later compaction (head: system prompt only), then the plan picks user", () => {
    const view = [live(system("sys"), 100), ...middleAndTail("m", 6)];
    expect(planSummary(policyInput(view, { compactions: 1 }), "test")).toMatchObject({ kind: "summary", role: "user" });
  });
});

describe("a later summary updates the earlier one", () => {
  it("given an earlier summary in the span, then its text (without the note) is previousSummary and it is superseded, not re-read", () => {
    const earlier = live(userMessage("s1", formatSummaryMessage("Goal: ship v2. Done: tests.")), 800, {
      compactionId: "k1",
      kind: "summary",
    });
    const view = [live(system("sys"), 100), earlier, ...middleAndTail("m", 6)];
    const plan = planSummary(policyInput(view, { compactions: 1 }), "test");
    if (plan.kind !== "summary") throw new Error(plan.reason);
    expect(plan.previousSummary).toBe("Goal: ship v2. Done: tests.");
    expect(plan.targets[0]).toBe("s1");
    expect(ids(plan.input)).not.toContain("s1");
    expect(ids(plan.input)).toEqual(plan.targets.slice(1));
    expect(plan.previousSummaryAt).toBe(0);
  });

  it("given head messages released into the span before the earlier summary, then previousSummaryAt counts them", () => {
    const earlier = live(userMessage("s1", formatSummaryMessage("Goal: ship v2.")), 800, {
      compactionId: "k1",
      kind: "summary",
    });
    const head = [live(userMessage("h1", "Step 1"), 100), live(assistantMessage("h2", "ok"), 100)];
    const view = [live(system("sys"), 100), ...head, earlier, ...middleAndTail("m", 6)];
    const plan = planSummary(policyInput(view, { compactions: 1 }), "test");
    if (plan.kind !== "summary") throw new Error(plan.reason);
    expect(plan.targets.slice(0, 3)).toEqual(["h1", "h2", "s1"]);
    expect(ids(plan.input).slice(0, 2)).toEqual(["h1", "h2"]);
    expect(plan.previousSummaryAt).toBe(2);
  });

  it("given a message that merely looks like a summary, then it is summarized as an ordinary message", () => {
    const lookalike = live(userMessage("fake", formatSummaryMessage("not really")), 100);
    const view = [live(system("sys"), 100), lookalike, ...middleAndTail("m", 6)];
    const plan = planSummary(policyInput(view, { compactions: 1 }), "test");
    if (plan.kind !== "summary") throw new Error(plan.reason);
    expect(plan.previousSummary).toBeUndefined();
    expect(ids(plan.input)).toContain("fake");
  });

  it("given a summary text with nested notes, when stripped, then no note remains", () => {
    const nested = formatSummaryMessage(`${formatSummaryMessage("inner")}\nouter`);
    expect(stripSummaryNote(nested)).toBe("inner\nouter");
    expect(formatSummaryMessage(nested).split(SUMMARY_PREFIX)).toHaveLength(2);
  });

  it("given a recall tool, then the summary's last line before the end marker names it, and stripping drops it, so an update holds it once", () => {
    const once = formatSummaryMessage("Goal: ship.", "mcp__palimpsest__recall");
    expect(once).toBe(`${SUMMARY_PREFIX}Goal: ship.\n\n${recallNote("mcp__palimpsest__recall")}${SUMMARY_SUFFIX}`);
    expect(recallNote("recall")).toContain("call the `recall` tool");
    expect(stripSummaryNote(once)).toBe("Goal: ship.");
    const updated = formatSummaryMessage(`${stripSummaryNote(once)}\nThen: docs.`, "recall");
    expect(updated.split(recallNote("recall"))).toHaveLength(2);
    expect(updated).not.toContain("mcp__palimpsest__recall");
    expect(formatSummaryMessage("Goal: ship.")).toBe(`${SUMMARY_PREFIX}Goal: ship.${SUMMARY_SUFFIX}`);
  });

  it("given a written summary, then its replacement opens with the note, closes with the end marker and takes the plan's role", () => {
    const view = [live(system("sys"), 100), ...middleAndTail("m", 6)];
    const plan = planSummary(policyInput(view, { compactions: 1 }), "test");
    if (plan.kind !== "summary") throw new Error(plan.reason);
    const replacement = summaryReplacementFor(plan, "s2", "Goal: ship.", countTokens);
    expect(replacement.kind).toBe("summary");
    expect(replacement.message.role).toBe(plan.role);
    const text = replacement.message.content[0]?.type === "text" ? replacement.message.content[0].text : "";
    expect(text.startsWith(SUMMARY_PREFIX)).toBe(true);
    expect(text.endsWith(SUMMARY_SUFFIX)).toBe(true);
    expect(replacement.tokens).toBe(countTokens(replacement.message));
  });
});

describe("summary span", () => {
  it("never splits a tool call from its results and keeps the last user message and reply", () => {
    const view = [
      live(system("sys"), 100),
      live(
        callTools("a0", [
          ["c0", "shell"],
          ["c1", "grep"],
        ]),
        100,
      ),
      live(output("r0", "c0", "x"), 20_000),
      live(output("r1", "c1", "y"), 20_000),
      ...middleAndTail("m", 4),
    ];
    const plan = planSummary(policyInput(view, { compactions: 1 }), "test");
    if (plan.kind !== "summary") throw new Error(plan.reason);
    expect(plan.targets.slice(0, 3)).toEqual(["a0", "r0", "r1"]);
    expect(plan.targets).not.toContain("last-u");
    expect(plan.targets).not.toContain("last-a");
  });
});
