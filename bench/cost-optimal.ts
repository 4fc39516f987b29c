/**
 * The evidence for the cost-optimal policy (issues 16 and 31; BENCHMARKS.md, "Compaction policies on real
 * transcripts"). Sessions are split in two: a tuning set, the only one the policy's constants may be chosen
 * on, and an evaluation set, only measured (TUNING_FILES and SHAPES below); `--dir <folder>` adds every
 * transcript of a folder as a third set, `outside` (sessions from outside the shared transcripts, labelled
 * `outside …` so that `--only outside` runs them alone). Each is replayed request by
 * request under none, summary and cost-optimal at 200K and 64K windows under the anthropic profile (Claude
 * Code's cache breakpoints), the same with a breakpoint on the last summary too, that again with a summarizer
 * reading the conversation (PROFILES) and the openai profile (main sessions only; the transcripts' timestamps
 * are passed to the policy). Per run where summary compacts it
 * prints both costs, the floor (requests that carry nothing from before: no policy reaches it), the bound for
 * summarizing policies (the floor plus the summarizer reading, once, what must leave the window), the share of
 * the possible saving (summary − floor) cost-optimal takes, mean recall and compactions; then per set the
 * runs that meet the goal (a third of the possible saving or more, recall at least summary's, no overflow),
 * per profile and in all.
 * `--micro` replays micro passes beside the batch runs instead. `--summarizer-model <model>` replays every
 * run again with the summarizer priced at that model. `--set tuning|evaluation` runs one set.
 * Run: `node_modules/.bin/tsx bench/cost-optimal.ts [--set <set>] [--only <text in the label>] [--dir <folder>]
 * [--micro] [--summarizer-model <model>]` (about fifteen minutes for both sets).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { customProfile, type ImportedSession, type ProviderProfile, parseTranscript } from "@palimpsest/core";
import { type PolicyReplay, replayTranscript, summarizerPrices } from "@palimpsest/eval";
import { profileNamed } from "@palimpsest/runtime/testing";
import { generatedSession } from "../test/replay/generated-transcript.ts";
import { type SessionShape, shapedSession } from "../test/replay/shaped-session.ts";
import { markdownTable, progress } from "./stats.ts";

const ROOT = join(import.meta.dirname, "../../shared/transcripts");

/** Which set a session belongs to: the policy's constants are chosen on `tuning` only; `outside` is `--dir`'s. */
type SetName = "tuning" | "evaluation" | "outside";

/**
 * The split, by transcript file (a prefix of its name) and by generated shape. Half of each source with
 * sessions long enough to compact goes to each side: two of the four Claude Code sessions with a real
 * compaction, one of the two older Claude Code files, and one seed of each generated kind.
 */
const TUNING_FILES = ["258c7280", "4d5611e5", "5c0375b4", "gpt-4o-airline"];
const SHAPES: { set: SetName; shape: SessionShape }[] = [
  { set: "tuning", shape: { kind: "tool-heavy", steps: 300, seed: 1 } },
  { set: "tuning", shape: { kind: "chatty", steps: 250, seed: 1 } },
  { set: "tuning", shape: { kind: "idle-gaps", steps: 300, seed: 1 } },
  { set: "evaluation", shape: { kind: "tool-heavy", steps: 300, seed: 2 } },
  { set: "evaluation", shape: { kind: "chatty", steps: 250, seed: 2 } },
  { set: "evaluation", shape: { kind: "idle-gaps", steps: 300, seed: 2 } },
];

/** Every transcript file under `dir` (no subagent folders, no notes). */
function transcriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "subagents" ? [] : transcriptFiles(path);
    return /\.(jsonl|json|traj)$/.test(name) ? [path] : [];
  });
}

interface Source {
  label: string;
  set: SetName;
  sessions: ImportedSession[];
}

function fileSource(path: string, set: SetName): Source {
  const sessions = parseTranscript(readFileSync(path, "utf8"), { fileName: basename(path) }).filter(
    (s) => s.parentExternalId === undefined,
  );
  return { label: basename(path).slice(0, 24), set, sessions };
}

function sources(extra: string | undefined): Source[] {
  const shared = transcriptFiles(ROOT).map((path) =>
    fileSource(path, TUNING_FILES.some((p) => basename(path).startsWith(p)) ? "tuning" : "evaluation"),
  );
  const generated: Source[] = [
    {
      label: "generated 400 steps",
      set: "tuning",
      sessions: [generatedSession({ steps: 400, shellTokens: 900, readTokens: 600 })],
    },
    {
      label: "generated 800 steps",
      set: "evaluation",
      sessions: [generatedSession({ steps: 800, shellTokens: 400, readTokens: 300 })],
    },
    ...SHAPES.map(({ set, shape }) => ({
      label: `${shape.kind} seed ${shape.seed}`,
      set,
      sessions: [shapedSession(shape)],
    })),
  ];
  // Sessions from outside the shared transcripts: measured apart, labelled so `--only outside` runs them alone.
  const outside = (extra === undefined ? [] : transcriptFiles(extra)).map((path) => {
    const source = fileSource(path, "outside");
    return { ...source, label: `outside ${source.label.slice(0, 16)}` };
  });
  return [...shared, ...generated, ...outside];
}

/** The value after `flag` on the command line, if any. */
function flag(name: string): string | undefined {
  return process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined;
}

/** `1 − after / before` as a signed percentage. */
function saving(before: number, after: number): string {
  return `${((1 - after / before) * 100).toFixed(1)}%`;
}

function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? "-" : (value * 100).toFixed(1);
}

/**
 * What a policy that summarizes what it removes pays at least beyond the floor: the summarizer reading,
 * once, the tokens that must leave the window by the last request (the uncompacted peak less the window,
 * in the provider's tokens, as the replay bills the summarizer), at its input price.
 */
function summarizingBound(
  replay: Awaited<ReturnType<typeof replayTranscript>>,
  none: PolicyReplay,
  profile: ProviderProfile,
  contextWindow: number,
): number {
  const mustLeave = Math.max(0, none.peakPromptTokens - contextWindow);
  const prices = summarizerPrices(profile, replay.models.summarizer ?? undefined);
  return none.floorCost + (mustLeave * prices.input) / 1_000_000;
}

/** The columns every per-run table starts with: which run, and summary's cost. */
const RUN_COLUMNS = ["transcript", "profile", "window", "summary $"] as const;

/** One run where summary compacts: summary and cost-optimal side by side, with the floor and the bound. */
interface Run {
  set: SetName;
  label: string;
  profile: string;
  window: number;
  summary: PolicyReplay;
  optimal: PolicyReplay;
  floor: number;
  bound: number;
}

/** The share of the saving the floor allows below summary that cost-optimal takes. */
function shareTaken(run: Run): number {
  const possible = run.summary.estimatedCost - run.floor;
  return possible > 0 ? (run.summary.estimatedCost - run.optimal.estimatedCost) / possible : 0;
}

function meetsGoal(run: Run): boolean {
  return (
    shareTaken(run) >= 1 / 3 &&
    (run.optimal.fidelity.meanRecall ?? 1) >= (run.summary.fidelity.meanRecall ?? 1) &&
    run.optimal.overflowTurns === 0
  );
}

const only = flag("--only");
const onlySet = flag("--set");
const summarizerModel = flag("--summarizer-model");
const micro = process.argv.includes("--micro");
const policies = micro
  ? (["none", "summary", "cost-optimal", "micro+summary", "micro+cost-optimal"] as const)
  : (["none", "summary", "cost-optimal"] as const);
/**
 * The variants replayed: Anthropic's profile with breakpoints where Claude Code puts them, the same with one
 * on the last summary too (what `toAnthropicRequest`'s `cache` option sends: the `summaryBreakpoint` cache
 * rule), that with a summarizer reading each span inside the agent's last request (AnthropicSummarizer's
 * `conversation` option: `summarizerReadsConversation`), and OpenAI's profile.
 */
const anthropic = profileNamed("anthropic");
const summaryBp = customProfile({ name: "anthropic, summary bp", cache: { summaryBreakpoint: true } }, anthropic);
const PROFILES: { name: string; profile: ProviderProfile; summarizerReadsConversation?: boolean }[] = [
  { name: anthropic.name, profile: anthropic },
  { name: summaryBp.name, profile: summaryBp },
  { name: "anthropic, bp, reads conv.", profile: summaryBp, summarizerReadsConversation: true },
  { name: "openai", profile: profileNamed("openai") },
];
const runs: Run[] = [];
const microRows: (string | number)[][] = [];
const lever: (string | number)[][] = [];
const selected = sources(flag("--dir")).filter(
  (s) => (only === undefined || s.label.includes(only)) && (onlySet === undefined || s.set === onlySet),
);
for (const { label, set, sessions } of selected) {
  for (const { profile, ...variant } of PROFILES) {
    for (const window of [200_000, 64_000]) {
      progress(`${set}: ${label} ${variant.name} ${window}`);
      const reads = variant.summarizerReadsConversation === true ? { summarizerReadsConversation: true } : {};
      const replay = await replayTranscript(sessions, { policies, profile, contextWindow: window, ...reads });
      const by = (name: string) => replay.policies.find((p) => p.policy === name) as PolicyReplay;
      const [none, summary, optimal] = [by("none"), by("summary"), by("cost-optimal")];
      if (micro) {
        for (const p of replay.policies.filter((p) => p.policy !== "none" && p.compressionEvents > 0)) {
          microRows.push([
            label,
            variant.name,
            `${window / 1000}K`,
            p.policy,
            p.estimatedCost.toFixed(3),
            percent(p.fidelity.meanRecall),
          ]);
        }
      }
      if (summary.compressionEvents === 0) continue;
      const bound = summarizingBound(replay, none, profile, window);
      runs.push({ set, label, profile: variant.name, window, summary, optimal, floor: summary.floorCost, bound });
      if (summarizerModel === undefined || variant.summarizerReadsConversation === true) continue;
      const cheap = await replayTranscript(sessions, {
        policies: ["summary", "cost-optimal"],
        profile,
        contextWindow: window,
        summarizerModel,
      });
      const [sc, oc] = cheap.policies;
      if (sc === undefined || oc === undefined) continue;
      lever.push([
        label,
        variant.name,
        `${window / 1000}K`,
        summary.estimatedCost.toFixed(3),
        sc.estimatedCost.toFixed(3),
        saving(summary.estimatedCost, sc.estimatedCost),
        optimal.estimatedCost.toFixed(3),
        oc.estimatedCost.toFixed(3),
        saving(optimal.estimatedCost, oc.estimatedCost),
        percent(oc.fidelity.meanRecall),
      ]);
    }
  }
}

for (const set of ["tuning", "evaluation", "outside"] as const) {
  const mine = runs.filter((r) => r.set === set);
  if (mine.length === 0) continue;
  console.log(`\n${set} set: runs where summary compacts\n`);
  console.log(
    markdownTable(
      [
        ...RUN_COLUMNS,
        "cost-optimal $",
        "saving",
        "floor $",
        "summarizing bound $",
        "share taken",
        "share of bound",
        "recall s / c-o",
        "events s / c-o",
        "overflow c-o",
      ],
      mine.map((r) => {
        const s = r.summary.estimatedCost;
        const o = r.optimal.estimatedCost;
        return [
          r.label,
          r.profile,
          `${r.window / 1000}K`,
          s.toFixed(3),
          o.toFixed(3),
          saving(s, o),
          r.floor.toFixed(3),
          r.bound.toFixed(3),
          shareTaken(r).toFixed(2),
          s > r.bound ? ((s - o) / (s - r.bound)).toFixed(2) : "-",
          `${percent(r.summary.fidelity.meanRecall)} / ${percent(r.optimal.fidelity.meanRecall)}`,
          `${r.summary.compressionEvents} / ${r.optimal.compressionEvents}`,
          r.optimal.overflowTurns,
        ];
      }),
    ),
  );
  console.log("");
  for (const { name } of PROFILES)
    console.log(
      pooled(
        `${set}, ${name}`,
        mine.filter((r) => r.profile === name),
      ),
    );
  console.log(pooled(set, mine));
}

/** One line of pooled figures over `runs`: costs, the share of the possible saving taken, runs meeting the goal. */
function pooled(name: string, runs: Run[]): string {
  const total = (pick: (r: Run) => number) => runs.reduce((sum, r) => sum + pick(r), 0);
  const [s, o, f] = [
    total((r) => r.summary.estimatedCost),
    total((r) => r.optimal.estimatedCost),
    total((r) => r.floor),
  ];
  const recallOk = runs.filter((r) => (r.optimal.fidelity.meanRecall ?? 1) >= (r.summary.fidelity.meanRecall ?? 1));
  return `${name}: ${runs.length} runs; summary $${s.toFixed(2)}, cost-optimal $${o.toFixed(2)} (${saving(s, o)}), floor $${f.toFixed(2)}: takes ${((100 * (s - o)) / (s - f)).toFixed(0)}% of the possible saving pooled; a third or more in ${runs.filter((r) => shareTaken(r) >= 1 / 3).length}/${runs.length}; recall ≥ summary's in ${recallOk.length}/${runs.length}; overflow turns ${total((r) => r.optimal.overflowTurns)}; goal met in ${runs.filter(meetsGoal).length}/${runs.length}`;
}
if (micro) {
  console.log("\nbatch and micro runs (runs that compact)\n");
  console.log(markdownTable(["transcript", "profile", "window", "run", "cost USD", "mean recall %"], microRows));
}
if (summarizerModel !== undefined) {
  console.log(`\nthe summarizer priced at ${summarizerModel}, runs where summary compacts:\n`);
  console.log(
    markdownTable(
      [
        ...RUN_COLUMNS,
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
}
