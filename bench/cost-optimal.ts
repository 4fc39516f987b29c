/**
 * The evidence for the cost-optimal policy (issue 16, BENCHMARKS.md, "Compaction policies on real transcripts"): replays every real transcript in
 * ../shared/transcripts and two long generated sessions under none, summary and cost-optimal, at 200K and
 * 64K windows under the anthropic and openai profiles (main sessions only; the transcripts' timestamps are
 * passed to the policy), and prints per run the cost, cache reads and writes, compression events,
 * overflow turns and mean recall, then cost-optimal against summary over the runs where summary compacts,
 * and per kind of session and window the floor no policy can go below (`floorCost`) beside both.
 * With `--summarizer-model <model>` every run is replayed again with the summarizer priced at that model,
 * and a second table reports what the cheaper summarizer saves, for summary and cost-optimal alike.
 * Run: `node_modules/.bin/tsx bench/cost-optimal.ts [--only <text in the label>] [--micro]
 * [--summarizer-model <model>]` (about four minutes; twice that with a summarizer model).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { type ImportedSession, parseTranscript } from "@palimpsest/core";
import { type PolicyReplay, replayTranscript, summarizerPrices } from "@palimpsest/eval";
import { profileNamed } from "@palimpsest/runtime/testing";
import { generatedSession } from "../test/replay/generated-transcript.ts";
import { markdownTable, progress } from "./stats.ts";

const ROOT = join(import.meta.dirname, "../../shared/transcripts");
/** `--micro`: micro passes beside the batch runs (micro+cost-optimal batches them by the same rule). */
const RUNS = process.argv.includes("--micro")
  ? (["summary", "cost-optimal", "micro+summary", "micro+cost-optimal"] as const)
  : (["none", "summary", "cost-optimal"] as const);

/** Every transcript file under the shared folder (no subagent folders, no notes). */
function transcriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "subagents" ? [] : transcriptFiles(path);
    return /\.(jsonl|json|traj)$/.test(name) ? [path] : [];
  });
}

function sources(): { label: string; sessions: ImportedSession[] }[] {
  const real = transcriptFiles(ROOT).map((path) => ({
    label: basename(path).slice(0, 24),
    sessions: parseTranscript(readFileSync(path, "utf8"), { fileName: basename(path) }).filter(
      (s) => s.parentExternalId === undefined,
    ),
  }));
  const generated = [
    { label: "generated 400 steps", sessions: [generatedSession({ steps: 400, shellTokens: 900, readTokens: 600 })] },
    { label: "generated 800 steps", sessions: [generatedSession({ steps: 800, shellTokens: 400, readTokens: 300 })] },
  ];
  return [...real, ...generated];
}

const rows: (string | number)[][] = [];
/** `1 − after / before` as a signed percentage. */
function saving(before: number, after: number): string {
  return `${((1 - after / before) * 100).toFixed(1)}%`;
}
let summaryTotal = 0;
let optimalTotal = 0;
let compacting = 0;
let cheaper = 0;
let fidelityOk = 0;
let overflow = 0;
/**
 * Per kind of session and window, over the runs where summary compacts: the costs and the floor (what no
 * policy that sends every message once can go below), so each saving can be set against the most possible.
 */
const groups = new Map<
  string,
  { runs: number; summary: number; optimal: number; floor: number; summarizing: number }
>();

/**
 * What a policy that summarizes what it removes pays at least beyond the floor: the summarizer reading,
 * once, the tokens that must leave the window by the last request (the uncompacted peak less the window,
 * in our tokens), at its input price. One session per transcript (the runs this bench groups).
 */
function summarizingFloor(
  replay: Awaited<ReturnType<typeof replayTranscript>>,
  none: PolicyReplay,
  profile: string,
  contextWindow: number,
): number {
  const scale = replay.cacheModel[0]?.tokenScale ?? 1;
  const mustLeave = Math.max(0, none.peakPromptTokens - contextWindow) / scale;
  return (mustLeave * summarizerPrices(profileNamed(profile), replay.models.summarizer ?? undefined).input) / 1_000_000;
}
/** The value after `flag` on the command line, if any. */
function flag(name: string): string | undefined {
  return process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
}
const only = flag("--only");
const summarizerModel = flag("--summarizer-model");
/** Per run where summary compacts: summary and cost-optimal, with the agent's model and with summarizerModel. */
const lever: (string | number)[][] = [];
const leverTotals = { summary: 0, summaryCheap: 0, optimal: 0, optimalCheap: 0 };
for (const { label, sessions } of sources().filter((s) => only === undefined || s.label.includes(only))) {
  for (const profile of ["anthropic", "openai"]) {
    for (const contextWindow of [200_000, 64_000]) {
      progress(`${label} ${profile} ${contextWindow}`);
      const replay = await replayTranscript(sessions, { policies: RUNS, profile, contextWindow });
      const { policies } = replay;
      const by = (name: string): PolicyReplay => policies.find((p) => p.policy === name) as PolicyReplay;
      for (const p of policies) {
        rows.push([
          label,
          profile,
          `${contextWindow / 1000}K`,
          p.policy,
          p.estimatedCost.toFixed(3),
          p.floorCost.toFixed(3),
          p.cachedTokens,
          p.cacheWriteTokens,
          p.compressionEvents,
          p.overflowTurns,
          p.fidelity.meanRecall === null ? "-" : (p.fidelity.meanRecall * 100).toFixed(1),
        ]);
      }
      const summary = by("summary");
      const optimal = by("cost-optimal");
      overflow += optimal.overflowTurns;
      if (summary.compressionEvents === 0) continue;
      compacting += 1;
      summaryTotal += summary.estimatedCost;
      optimalTotal += optimal.estimatedCost;
      const group = `${label.startsWith("generated") ? "generated" : "real"} sessions at ${contextWindow / 1000}K`;
      const totals = groups.get(group) ?? { runs: 0, summary: 0, optimal: 0, floor: 0, summarizing: 0 };
      totals.runs += 1;
      totals.summary += summary.estimatedCost;
      totals.optimal += optimal.estimatedCost;
      totals.floor += summary.floorCost;
      totals.summarizing += summarizingFloor(replay, by("none"), profile, contextWindow);
      groups.set(group, totals);
      if (optimal.estimatedCost <= 0.75 * summary.estimatedCost) cheaper += 1;
      if ((optimal.fidelity.meanRecall ?? 0) >= (summary.fidelity.meanRecall ?? 0)) fidelityOk += 1;
      if (summarizerModel === undefined) continue;
      const cheap = await replayTranscript(sessions, {
        policies: ["summary", "cost-optimal"],
        profile,
        contextWindow,
        summarizerModel,
      });
      const cheapBy = (name: string): PolicyReplay => cheap.policies.find((p) => p.policy === name) as PolicyReplay;
      const [s, sc, o, oc] = [summary, cheapBy("summary"), optimal, cheapBy("cost-optimal")].map(
        (p) => p.estimatedCost,
      );
      leverTotals.summary += s as number;
      leverTotals.summaryCheap += sc as number;
      leverTotals.optimal += o as number;
      leverTotals.optimalCheap += oc as number;
      lever.push([
        label,
        profile,
        `${contextWindow / 1000}K`,
        (s as number).toFixed(3),
        (sc as number).toFixed(3),
        saving(s as number, sc as number),
        (o as number).toFixed(3),
        (oc as number).toFixed(3),
        saving(o as number, oc as number),
        (cheapBy("cost-optimal").fidelity.meanRecall * 100).toFixed(1),
      ]);
    }
  }
}
console.log(
  markdownTable(
    [
      "transcript",
      "profile",
      "window",
      "policy",
      "cost USD",
      "floor USD",
      "cache reads",
      "cache writes",
      "events",
      "overflow",
      "mean recall %",
    ],
    rows,
  ),
);
console.log(
  `\nruns where summary compacts: ${compacting}; cost-optimal $${optimalTotal.toFixed(2)} against summary $${summaryTotal.toFixed(2)} (${((1 - optimalTotal / summaryTotal) * 100).toFixed(1)}% cheaper); ≥25% cheaper in ${cheaper}/${compacting}; mean recall ≥ summary's in ${fidelityOk}/${compacting}; cost-optimal overflow turns: ${overflow}`,
);
for (const [group, t] of groups) {
  const possible = t.summary - t.floor;
  const summarizing = t.floor + t.summarizing;
  console.log(
    `${group} (${t.runs} runs): summary $${t.summary.toFixed(2)}, cost-optimal $${t.optimal.toFixed(2)} (${saving(t.summary, t.optimal)}), floor $${t.floor.toFixed(2)}: at most ${saving(t.summary, t.floor)} below summary is possible, cost-optimal takes ${possible > 0 ? ((100 * (t.summary - t.optimal)) / possible).toFixed(0) : "-"}% of it; a policy that summarizes what must leave the window pays $${t.summarizing.toFixed(2)} more: at most ${saving(t.summary, summarizing)} below summary`,
  );
}
if (summarizerModel !== undefined) {
  console.log(`\nthe summarizer priced at ${summarizerModel}, runs where summary compacts:\n`);
  console.log(
    markdownTable(
      [
        "transcript",
        "profile",
        "window",
        "summary $",
        `summary $, ${summarizerModel}`,
        "saves",
        "cost-optimal $",
        `cost-optimal $, ${summarizerModel}`,
        "saves",
        `cost-optimal recall %, ${summarizerModel}`,
      ],
      lever,
    ),
  );
  const t = leverTotals;
  console.log(
    `\n${summarizerModel} as summarizer: summary $${t.summary.toFixed(2)} → $${t.summaryCheap.toFixed(2)} (${saving(t.summary, t.summaryCheap)}), cost-optimal $${t.optimal.toFixed(2)} → $${t.optimalCheap.toFixed(2)} (${saving(t.optimal, t.optimalCheap)})`,
  );
}
