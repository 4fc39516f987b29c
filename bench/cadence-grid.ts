/**
 * What a fixed cadence could take (issue 31): replays one session under summary, cost-optimal and a grid of
 * fixed-cadence policies (compact every k requests, or at the threshold, with a protected tail of a share of
 * the profile's; earlier summaries kept while they hold under 12,000 tokens) and prints each one's cost and
 * share of the possible saving (summary − floor), so cost-optimal's share can be set against the best a
 * summarizing policy of this kind found by search takes on that session. The grid is chosen in hindsight,
 * per session: a reference, not a policy. Run: `node_modules/.bin/tsx bench/cadence-grid.ts <file |
 * tool-heavy:<seed> | chatty:<seed> | idle-gaps:<seed>> <anthropic|openai> <window>` (about a minute).
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import {
  type CompactionPolicy,
  compactionThreshold,
  type ImportedSession,
  initialState,
  isSummaryEntry,
  parseTranscript,
  planSummary,
  tailBudget,
} from "@palimpsest/core";
import { type PolicyReplay, replayTranscript, summarizerPrices } from "@palimpsest/eval";
import { policyReplay, replaySession } from "@palimpsest/eval/testing";
import { openPalimpsest, type PolicyDefinition, resolveCompaction } from "@palimpsest/runtime";
import { profileNamed } from "@palimpsest/runtime/testing";
import { type SessionKind, shapedSession } from "../test/replay/shaped-session.ts";
import { markdownTable } from "./stats.ts";

/** A kept chain of summaries is updated once it holds this many tokens. */
const CHAIN_TOKENS = 12_000;

/** Compacts every `k` requests since the last summary, or at the threshold, with a tail of `share` × the profile's. */
function cadence(k: number, share: number): PolicyDefinition {
  const policy: CompactionPolicy = {
    name: `every ${k}, tail ${share}`,
    plan(input) {
      const threshold = compactionThreshold(input.contextWindow, input.maxOutputTokens, input.profile.threshold);
      const last = input.view.findLastIndex(isSummaryEntry);
      const since = input.view.slice(last + 1).filter((e) => e.message.role === "assistant").length;
      if (input.liveTokens < threshold && since < k) return { kind: "none", reason: `${since} of ${k} requests` };
      const budget = Math.floor(share * tailBudget(input.contextWindow, input.profile.tail));
      const tail = { minTokens: budget, maxTokens: budget, ratio: 0, capRatio: 1 };
      const chain = input.view.filter(isSummaryEntry).reduce((n, e) => n + e.tokens, 0);
      const tailed = { ...input, profile: { ...input.profile, tail } };
      return planSummary(tailed, policy.name, { keepSummaries: chain < CHAIN_TOKENS });
    },
  };
  return { name: policy.name, summary: "a fixed cadence (bench only)", create: () => policy };
}

function sessionsOf(what: string): ImportedSession[] {
  const [kind, seed] = what.split(":");
  // The shapes' lengths in bench/cost-optimal.ts.
  const steps = kind === "chatty" ? 250 : 300;
  if (seed !== undefined) return [shapedSession({ kind: kind as SessionKind, steps, seed: Number(seed) })];
  const parsed = parseTranscript(readFileSync(what, "utf8"), { fileName: basename(what) });
  return parsed.filter((s) => s.parentExternalId === undefined);
}

const [what, profile = "anthropic", window = "200000"] = process.argv.slice(2);
if (what === undefined) {
  console.error("usage: tsx bench/cadence-grid.ts <file | kind:seed> [anthropic|openai] [window]");
  process.exit(2);
}
const sessions = sessionsOf(what);
const contextWindow = Number(window);
const base = await replayTranscript(sessions, { policies: ["summary", "cost-optimal"], profile, contextWindow });
const [summary, optimal] = base.policies;
if (summary === undefined || optimal === undefined) throw new Error("no replay");
const possible = summary.estimatedCost - summary.floorCost;
const share = (cost: number) => (possible > 0 ? ((summary.estimatedCost - cost) / possible).toFixed(2) : "-");
const rows: (string | number)[][] = [
  ["summary", summary.estimatedCost.toFixed(3), "0.00", (summary.fidelity.meanRecall * 100).toFixed(1)],
  [
    "cost-optimal",
    optimal.estimatedCost.toFixed(3),
    share(optimal.estimatedCost),
    (optimal.fidelity.meanRecall * 100).toFixed(1),
  ],
];
const runtime = await openPalimpsest({ url: ":memory:" });
const prices = summarizerPrices(profileNamed(profile), sessions[0]?.model);
// The answer's reserve as replayTranscript resolves it (the profile's, at most a quarter of the window).
const settings = { profile: profileNamed(profile), contextWindow };
const { maxOutputTokens } = resolveCompaction(settings, initialState("grid"), () => 0);
/** One grid point over every session, folded as a replay folds a policy's runs. */
async function replayCadence(policy: PolicyDefinition): Promise<PolicyReplay> {
  const runs = [];
  for (const source of sessions) {
    runs.push(await replaySession(runtime, source, { ...settings, policy, maxOutputTokens }));
  }
  const label = { policy: policy.name, profile, contextWindow, threshold: summary?.threshold ?? null };
  return policyReplay({ ...label, summarizerPrices: prices }, runs);
}
for (const k of [4, 8, 16, 32]) {
  for (const tail of [0.1, 0.25, 0.5]) {
    const run = await replayCadence(cadence(k, tail));
    rows.push([
      run.policy,
      run.estimatedCost.toFixed(3),
      share(run.estimatedCost),
      (run.fidelity.meanRecall * 100).toFixed(1),
    ]);
  }
}
await runtime.close();
console.log(`${basename(what)}, ${profile}, ${contextWindow / 1000}K: floor $${summary.floorCost.toFixed(3)}\n`);
console.log(markdownTable(["policy", "cost USD", "share of the possible saving", "mean recall %"], rows));
