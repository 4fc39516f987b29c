/**
 * The units of a summary's expected size. Budgets are fitted in the summarizer's units (estimateTokens, 3.25
 * characters a token), while the session counts with its tokenizer (prose about 5 characters a token): the
 * cost model must see a summary's size as the session will count it, and an update's need must count the
 * summary it folds in as the summarizer will measure it.
 */
import { type LiveEntry, type Message, OfflineSummarizer } from "@palimpsest/core";
import { costCandidates, estimateTokens, OPENAI_PROFILE, summaryNeed } from "@palimpsest/core/testing";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { summaryRequestTokens } from "../../src/compaction/summary-need.ts";
import { callTools, live, output, policyInput, system } from "./view-builders.ts";

const counter = await createTokenCounter("o200k_base");
const counted = (message: Message): LiveEntry => live(message, counter.countMessage(message));

/** A long prose request, different each turn (the summary keeps each verbatim). */
const ask = (t: number) =>
  `Question ${t}: could you walk me through, once more and slowly, how the parts of the design hold together when the load grows and the team ${t % 7} changes its plans`;

/** A chatty conversation: prose requests and prose answers, counted by the session's tokenizer. */
function chatty(from: number, to: number): LiveEntry[] {
  const view: LiveEntry[] = [];
  for (let t = from; t < to; t++) {
    view.push(counted(userMessage(`u${t}`, ask(t))));
    view.push(
      counted({
        id: `a${t}`,
        role: "assistant",
        content: [
          {
            type: "text",
            text: `It holds because each part answers to the one before it. ${"More prose. ".repeat(40)}`,
          },
        ],
      }),
    );
  }
  return view;
}

/**
 * A summary of 40 turns of tool calls, each asked for in prose, as the session counts it (its paths and
 * commands count denser than the estimate: its own ratio is 1), and the counted tokens of its requests section.
 */
async function toolCallSummary(): Promise<{ kept: LiveEntry; requests: number }> {
  const messages: Message[] = [];
  for (let t = 0; t < 40; t++) {
    messages.push(userMessage(`q${t}`, ask(t)));
    const command = `make test src/dir${t}/file_${t}.ts && ls /var/log/x${t}`;
    messages.push(callTools(`a${t}`, [[`c${t}`, "shell", JSON.stringify({ command })]]));
    messages.push(output(`r${t}`, `c${t}`, `took ${t}.5 ms, ${t}.25 MB, /usr/src/a${t}/b.ts`));
  }
  const { text } = await new OfflineSummarizer().summarize({ messages, maxOutputTokens: 1_000_000 });
  const held = counted({ id: "s1", role: "user", content: [{ type: "text", text }] });
  const kept = { ...held, placedBy: { compactionId: "c-s1", kind: "summary" as const } };
  expect(kept.tokens).toBeGreaterThan(estimateTokens(text));
  const start = text.indexOf("## User Requests");
  const section = text.slice(start, text.indexOf("\n## ", start + 1));
  const requests = counter.countMessage({ id: "r", role: "user", content: [{ type: "text", text: section }] });
  return { kept, requests };
}

/** What the offline summary of `span` writes with all the room it wants, as the session counts it. */
async function writtenSummary(
  span: readonly LiveEntry[],
  previousSummary?: string,
): Promise<{ text: string; counted: number }> {
  const { text } = await new OfflineSummarizer().summarize({
    messages: span.map((e) => e.message),
    maxOutputTokens: 1_000_000,
    ...(previousSummary === undefined ? {} : { previousSummary, previousSummaryAt: 0, previousSummaries: 1 }),
  });
  return { text, counted: counter.countMessage({ id: "s", role: "user", content: [{ type: "text", text }] }) };
}

describe("a summary's expected size, in the session's counted tokens", () => {
  it("given a span of prose requests, then a plan's expected summary is what the session counts, not the summarizer's estimate", async () => {
    const view = [live(system("sys"), 500), ...chatty(0, 120)];
    const input = policyInput(view, { force: true });
    const candidates = costCandidates(input, [1]);
    const roomy = candidates.find((c) => c.lostItems === 0);
    if (roomy === undefined) throw new Error("a plan with room for every fact");
    const written = await writtenSummary(roomy.plan.input);
    // Prose: the estimate is well over the count.
    expect(estimateTokens(written.text)).toBeGreaterThan(1.15 * written.counted);
    // The need is still in the summarizer's units (what its budget is fitted in)...
    expect(roomy.need.tokens / estimateTokens(written.text)).toBeGreaterThan(0.9);
    expect(roomy.need.tokens / estimateTokens(written.text)).toBeLessThan(1.1);
    // ...and the cost model's size is the counted one.
    expect(roomy.shape.summaryTokens / written.counted).toBeGreaterThan(0.9);
    expect(roomy.shape.summaryTokens / written.counted).toBeLessThan(1.1);
  });

  it("given a budget that holds only the requests, then the expected size is their counted tokens and the frame", async () => {
    const candidates = costCandidates(policyInput([live(system("sys"), 500), ...chatty(0, 250)], { force: true }), [1]);
    const short = candidates.find((c) => c.plan.maxSummaryTokens <= c.need.hardTokens);
    if (short === undefined) throw new Error("a plan whose budget the requests pass");
    const { need } = short;
    expect(short.shape.summaryTokens).toBe(need.counted.hardTokens);
    expect(need.counted.hardTokens).toBeLessThan(0.85 * need.hardTokens);
  });

  it("given an update of a prose summary, then the need counts it as the summarizer measures it, and the counted size as the session counts it", async () => {
    const first = await writtenSummary(chatty(0, 40));
    const earlier = live({ id: "s1", role: "user", content: [{ type: "text", text: first.text }] }, first.counted, {
      compactionId: "c-s1",
      kind: "summary",
    });
    const span = chatty(40, 50);
    const need = summaryNeed(span, [earlier]);
    const update = await writtenSummary(
      span.map((e) => e),
      first.text,
    );
    // The update folds the earlier summary in whole: in the summarizer's units, about its text's estimate.
    expect(need.tokens / estimateTokens(update.text)).toBeGreaterThan(0.85);
    expect(need.tokens / estimateTokens(update.text)).toBeLessThan(1.15);
    expect(need.counted.tokens / update.counted).toBeGreaterThan(0.85);
    expect(need.counted.tokens / update.counted).toBeLessThan(1.15);
  });

  it("given an update whose span has no request, then the requests heading the earlier summary's requests need is counted", async () => {
    const asked = ["Make the build pass", "Then run every test again and tell me which ones fail"];
    const { text } = await new OfflineSummarizer().summarize({
      messages: asked.map((t, i) => userMessage(`q${i}`, t)),
      maxOutputTokens: 1,
    });
    const placed = { compactionId: "c-s1", kind: "summary" } as const;
    const held = live({ id: "s1", role: "user", content: [{ type: "text", text }] }, 2_000, placed);
    const bare = live({ id: "s1", role: "user", content: [{ type: "text", text: "summary s1" }] }, 2_000, placed);
    const span = [live({ id: "a1", role: "assistant", content: [{ type: "text", text: "Done: it builds." }] }, 20)];
    const requests = asked.reduce((sum, t) => sum + estimateTokens(t) + 9, 0);
    // The heading and lead line of the requests section (92 characters) come with the requests.
    const heading = estimateTokens("x".repeat(92));
    expect(summaryNeed(span, [held]).hardTokens - summaryNeed(span, [bare]).hardTokens).toBe(requests + heading);
  });

  it("given a kept summary of tool calls, then the requests it holds leave its chain at the prose ratio of the span's requests, not as their estimate", async () => {
    // Its paths and commands count denser than the estimate: the summary's own ratio is 1.
    const { kept, requests } = await toolCallSummary();
    // Without prose to measure on, the requests are their estimate, a quarter over what the session counts...
    expect(summaryRequestTokens([kept])).toBeGreaterThan(1.15 * requests);
    // ...and at the ratio of the span's own requests, what the session counts.
    const span = chatty(40, 60);
    expect(summaryRequestTokens([kept], span) / requests).toBeGreaterThan(0.9);
    expect(summaryRequestTokens([kept], span) / requests).toBeLessThan(1.1);
  });

  it("given an update of a summary of tool calls, then its need counts the requests it holds at the prose ratio of the span's requests, not as their estimate", async () => {
    const { kept, requests } = await toolCallSummary();
    // The same summary without requests: what the requests add to the need is theirs alone.
    const bare = live(userMessage("s1", "summary s1"), kept.tokens, kept.placedBy);
    const span = chatty(40, 60);
    const added = summaryNeed(span, [kept]).counted.hardTokens - summaryNeed(span, [bare]).counted.hardTokens;
    // As a kept chain leaves them out (summaryRequestTokens), and what the session counts: at the summary's
    // own ratio (1), they would be their estimate, a quarter over.
    expect(added).toBe(summaryRequestTokens([kept], span));
    expect(added / requests).toBeGreaterThan(0.9);
    expect(added / requests).toBeLessThan(1.1);
  });

  it("given a kept chain holding a summary of tool calls, then its cap leaves the requests out at the prose ratio of the span's requests, not as their estimate", async () => {
    const { kept } = await toolCallSummary();
    const cap = OPENAI_PROFILE.summary.maxTokens;
    const span = chatty(40, 160);
    // A chain of an earlier summary of `held` tokens (no requests), then the summary of tool calls.
    const chain = (held: number) =>
      costCandidates(
        policyInput(
          [
            live(system("sys"), 500),
            live(userMessage("s0", "summary s0"), held, { compactionId: "c-s0", kind: "summary" }),
            kept,
            ...span,
          ],
          { compactions: 2 },
        ),
        [1],
      );
    const keeping = chain(100).filter((c) => c.keepsSummaries);
    expect(keeping.length).toBeGreaterThan(0);
    // What the cap counts of each plan that keeps the chain: the chain less its requests (counted at the
    // ratio of the plan's span's requests), and the new summary at its expected size.
    const capped = keeping.map((c) => {
      const requests = summaryRequestTokens([kept], c.plan.input);
      // At their estimate, the requests would leave the chain some 400 tokens lighter.
      expect(summaryRequestTokens([kept]) - requests).toBeGreaterThan(300);
      return c.shape.headTokens - c.shape.systemTokens - requests + c.shape.summaryTokens;
    });
    const near = 100 + 2 * cap - Math.min(...capped);
    expect(chain(near).some((c) => c.keepsSummaries)).toBe(true);
    const over = chain(near + 1);
    expect(over.length).toBeGreaterThan(0);
    expect(over.some((c) => c.keepsSummaries)).toBe(false);
  });
});
