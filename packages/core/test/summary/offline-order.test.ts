import { type Message, OfflineSummarizer } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

const text = (t: string) => [{ type: "text" as const, text: t }];
const STEP_1 = "Step 1: set up the project.\n    Keep this indentation\n\n\tand this tab.";

/** One user step and the agent's reply with a command. */
function step(n: number, request = `Step ${n}: do part ${n}.`): Message[] {
  return [
    { id: `u${n}`, role: "user", content: text(request) },
    {
      id: `a${n}`,
      role: "assistant",
      content: text(`Done with step ${n}.`),
      toolCalls: [{ id: `c${n}`, name: "Bash", arguments: JSON.stringify({ command: `make part-${n}` }) }],
    },
    { id: `t${n}`, role: "tool", toolCallId: `c${n}`, content: text("ok") },
  ];
}

const offline = new OfflineSummarizer();
const pass = async (messages: Message[], previousSummary?: string, previousSummaryAt?: number) =>
  (
    await offline.summarize({
      messages,
      maxOutputTokens: 2_000,
      ...(previousSummary === undefined ? {} : { previousSummary }),
      ...(previousSummaryAt === undefined ? {} : { previousSummaryAt }),
    })
  ).text;

/** Where each request's text starts in the summary (-1 when missing). */
const positions = (summary: string, requests: string[]) => requests.map((r) => summary.indexOf(`\n${r}\n`));

describe("successive offline summaries", () => {
  it("keep the user's requests verbatim, once each and in order, across four compactions", async () => {
    // 1st: Step 1 is in the protected head, Step 2 is summarized.
    const first = await pass(step(2));
    // 2nd: the head shrank to the system prompt, so Step 1 (older than the summary) joins the span before it.
    const second = await pass([...step(1, STEP_1), ...step(3)], first, 3);
    const third = await pass(step(4), second, 0);
    const fourth = await pass(step(5), third, 0);
    const requests = [STEP_1, "Step 2: do part 2.", "Step 3: do part 3.", "Step 4: do part 4.", "Step 5: do part 5."];
    for (const summary of [second, third, fourth]) {
      const at = positions(summary, requests).filter((i) => i !== -1);
      expect([...at].sort((x, y) => x - y)).toEqual(at);
    }
    const at = positions(fourth, requests);
    expect(at.every((i) => i >= 0)).toBe(true);
    for (const r of requests) expect(fourth.split(r)).toHaveLength(2);
    expect(fourth.match(/^\[request \d+\]$/gm)).toEqual(requests.map((_, i) => `[request ${i + 1}]`));
    const commands = fourth.slice(fourth.indexOf("## Commands"), fourth.indexOf("## Current State"));
    const made = [1, 2, 3, 4, 5].map((n) => commands.indexOf(`make part-${n}`));
    expect([...made].sort((x, y) => x - y)).toEqual(made);
    expect(fourth).not.toContain("[CONTEXT SUMMARY");
  });

  it("summarize their own output to the same text (nothing re-indented or duplicated)", async () => {
    const once = await pass([...step(1, STEP_1), ...step(2)]);
    const again = await pass([], once);
    expect(again.replace(/- Budget: .*/, "")).toBe(once.replace(/- Budget: .*/, ""));
  });
});
