import { customProfile, isSummaryEntry, ValidationError } from "@palimpsest/core";
import { type MeasuredCompaction, replayTranscript, type SessionReplay, summarizerPrices } from "@palimpsest/eval";
import { describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realSessions } from "../support/real-transcripts.ts";

// A Claude Code session whose usage gives a token scale well above 1 (our counts are not Claude's).
const FILE = "claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl";
const profile = customProfile({ name: "anthropic", cache: { summaryBreakpoint: true } }, "anthropic");

/** One summary run of the file's main session at a 64K window, with what the replay saw of each compaction. */
async function replayed(summarizerReadsConversation: boolean) {
  const sessions = realSessions(FILE).filter((s) => s.parentExternalId === undefined);
  const runs: SessionReplay[] = [];
  const summaryTokens: number[] = [];
  const replay = await replayTranscript(sessions, {
    policies: ["summary"],
    profile,
    contextWindow: 64_000,
    summarizerReadsConversation,
    onCompaction: (session) => {
      summaryTokens.push(session.state.live.findLast(isSummaryEntry)?.tokens ?? Number.NaN);
    },
    onSessionReplayed: (run) => runs.push(run),
  });
  const [run] = runs;
  const [policy] = replay.policies;
  if (run === undefined || policy === undefined) throw new Error("the replay produced no run");
  const scale = replay.cacheModel[0]?.tokenScale ?? Number.NaN;
  return { run, policy, summaryTokens, scale, model: replay.models.summarizer ?? undefined };
}

const requestsCost = (run: SessionReplay) => run.estimates.reduce((sum, e) => sum + e.cost, 0);

describe.skipIf(!HAVE_TRANSCRIPTS)("a replay whose summarizer reads the conversation", () => {
  it("bills each summary as the agent's request, the prompt as it stood, mostly read from the cache", {
    timeout: 120_000,
  }, async () => {
    const { run, policy } = await replayed(true);
    expect(run.compactions.length).toBeGreaterThan(5);
    const asked = run.compactions.map((c) => c.summarizerRequest);
    expect(asked.every((r) => r !== undefined)).toBe(true);
    const requests = asked as NonNullable<MeasuredCompaction["summarizerRequest"]>[];
    // The agent's last request cached most of the prompt: most of each call is read.
    const read = requests.reduce((n, r) => n + r.cachedTokens, 0);
    const sent = requests.reduce((n, r) => n + r.promptTokens, 0);
    expect(read / sent).toBeGreaterThan(0.8);
    for (const [i, c] of run.compactions.entries()) expect(requests[i]?.outputTokens).toBe(c.auxOutputTokens);
    // The run's cost is its requests and those calls, nothing billed twice at the summarizer's prices.
    const calls = requests.reduce((sum, r) => sum + r.cost, 0);
    expect(policy.estimatedCost).toBeCloseTo(requestsCost(run) + calls, 9);
    expect(policy.auxInputTokens).toBe(sent);
  });

  it("otherwise bills the span at the summarizer's prices, in the provider's tokens like the requests", {
    timeout: 120_000,
  }, async () => {
    const { run, policy, summaryTokens, scale, model } = await replayed(false);
    expect(scale).toBeGreaterThan(1.2);
    expect(run.compactions.some((c) => c.summarizerRequest !== undefined)).toBe(false);
    // The offline summarizer reports no usage: its summary's tokens, ours, are scaled as a request's are.
    expect(run.compactions.map((c) => c.auxOutputTokens)).toStrictEqual(
      summaryTokens.map((t) => Math.round(t * scale)),
    );
    const { input, output } = summarizerPrices(profile, model);
    const tokens = (pick: (c: MeasuredCompaction) => number) => run.compactions.reduce((n, c) => n + pick(c), 0);
    const aux = (tokens((c) => c.auxInputTokens) * input + tokens((c) => c.auxOutputTokens) * output) / 1e6;
    expect(aux).toBeGreaterThan(0);
    expect(policy.estimatedCost).toBeCloseTo(requestsCost(run) + aux, 9);
  });

  it("refuses a summarizer model beside it: the conversation is read with the agent's", async () => {
    const sessions = realSessions(FILE).filter((s) => s.parentExternalId === undefined);
    const replay = replayTranscript(sessions, {
      policies: ["summary"],
      profile,
      contextWindow: 64_000,
      summarizerReadsConversation: true,
      summarizerModel: "claude-haiku-4-5",
    });
    await expect(replay).rejects.toBeInstanceOf(ValidationError);
    await expect(replay).rejects.toMatchObject({ details: { issues: [{ path: "summarizerModel" }] } });
  });
});
