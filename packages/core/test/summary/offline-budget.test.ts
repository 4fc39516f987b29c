import { type LiveEntry, type Message, OfflineSummarizer, planSummary } from "@palimpsest/core";
import { estimateTokens } from "@palimpsest/core/testing";
import { assistantMessage, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { live, policyInput, system } from "../compaction/view-builders.ts";

const text = (t: string) => [{ type: "text" as const, text: t }];

/** A view whose middle holds `middle` tokens (four messages), then a tail that fills the protected 10K. */
function viewWithMiddle(middle: number): LiveEntry[] {
  const each = middle / 4;
  return [
    live(system("sys"), 100),
    ...[0, 1, 2, 3].map((i) => live(i % 2 === 0 ? userMessage(`m${i}`, "q") : assistantMessage(`m${i}`, "r"), each)),
    live(userMessage("last-u", "latest question"), 100),
    live(assistantMessage("last-a", "latest reply"), 10_000),
  ];
}

/** The budget a forced summary of a middle of `middle` tokens gets. */
function budgetFor(middle: number): number {
  const plan = planSummary(policyInput(viewWithMiddle(middle), { compactions: 1, force: true }), "test");
  if (plan.kind !== "summary") throw new Error(plan.reason);
  return plan.maxSummaryTokens;
}

/** `n` turns of a successful command each, then one failed command. */
function manyCommands(n: number): Message[] {
  const out: Message[] = [{ id: "u0", role: "user", content: text("Run the whole build.") }];
  for (let i = 0; i < n; i++) {
    out.push({
      id: `a${i}`,
      role: "assistant",
      content: [],
      toolCalls: [
        { id: `c${i}`, name: "Bash", arguments: JSON.stringify({ command: `make target-${i} VERBOSE=1` }) },
        { id: `r${i}`, name: "Read", arguments: JSON.stringify({ file_path: `src/file-${i}.c` }) },
      ],
    });
    out.push({ id: `t${i}`, role: "tool", toolCallId: `c${i}`, content: text(`built out/file-${i}.o`) });
    out.push({ id: `rt${i}`, role: "tool", toolCallId: `r${i}`, content: text("int main() {}") });
  }
  out.push({
    id: "af",
    role: "assistant",
    content: text("The link step failed; next I will fix the linker flags."),
    toolCalls: [{ id: "cf", name: "Bash", arguments: JSON.stringify({ command: "make link" }) }],
  });
  out.push({ id: "tf", role: "tool", toolCallId: "cf", isError: true, content: text("ld: undefined reference") });
  return out;
}

describe("the summary budget", () => {
  it("is a share of what the summary removes, with a floor and a cap", () => {
    expect(budgetFor(4_000)).toBe(600);
    expect(budgetFor(40_000)).toBe(3_000);
    expect(budgetFor(400_000)).toBe(8_000);
  });

  it("is met by dropping the least important lines first, and the summary says how many went", async () => {
    const messages = manyCommands(150);
    const { text: summary } = await new OfflineSummarizer().summarize({ messages, maxOutputTokens: 1_500 });
    expect(estimateTokens(summary)).toBeLessThanOrEqual(1_500);
    expect(summary).toContain(`Budget: ~${estimateTokens(summary)} of 1500 tokens;`);
    const dropped = Number(/(\d+) lines dropped, least important first/.exec(summary)?.[1]);
    expect(dropped).toBeGreaterThan(0);
    expect(summary).toContain("Run the whole build.");
    expect(summary).toContain("✗ `make link`: ld: undefined reference");
    expect(summary).toContain("make target-149 VERBOSE=1");
    expect(summary).not.toContain("make target-0 VERBOSE=1");
    expect(summary).toContain("`src/file-0.c`: read");
    const { text: roomy } = await new OfflineSummarizer().summarize({ messages, maxOutputTokens: 8_000 });
    expect(roomy).toContain("make target-0 VERBOSE=1");
    expect(roomy).toContain("nothing dropped");
  });

  it("never drops or cuts a request: when the requests alone are over, the summary says it is over", async () => {
    const long = `Please do all of this:\n${"- a detailed requirement line\n".repeat(100)}`;
    const { text: summary } = await new OfflineSummarizer().summarize({
      messages: [{ id: "u1", role: "user", content: text(long) }],
      maxOutputTokens: 100,
    });
    expect(summary).toContain(long);
    expect(summary).toMatch(/Budget: ~\d+ of 100 tokens \(over: requests are never dropped\)/);
  });
});
