/**
 * Background pre-compaction with a summarizer that takes time (issue 15): every main session of the real
 * Claude Code transcripts that compacts at the window is replayed under the summary policy with the
 * OpenAI-compatible summarizer pointed at a local fake server that answers after a fixed delay per input
 * token, once with a PrecompactionScheduler (debounce 0, jobs awaited between turns, the cold summary of
 * the same view timed on each hit) and once without. Per compaction: a hit's synchronous time (commitMs)
 * against the cold compaction of the same view (measureCold), or a miss and why.
 * Standalone: `npx tsx bench/precompact-latency.ts [ms-per-input-token [refresh-tokens]]`; in the suite: `--only precompact-llm`.
 */
import { type ImportedSession, type ProviderProfile, SUMMARY_SECTIONS, type Summarizer } from "@palimpsest/core";
import { replaySession } from "@palimpsest/eval/testing";
import { openPalimpsest, type Palimpsest, type PrecompactEvent, PrecompactionScheduler } from "@palimpsest/runtime";
import { profileNamed } from "@palimpsest/runtime/testing";
import { OpenAICompatibleSummarizer } from "@palimpsest/summarizers";
import { type FakeProvider, startFakeProvider } from "../packages/summarizers/test/support/fake-provider.ts";
import { canCompactInReplay, realSessions, realTranscriptFiles } from "../test/support/real-transcripts.ts";
import { markdownTable, ms, num, progress } from "./stats.ts";

/** The settings of the run: window, profile, policy and the fake model's latency. */
export const PRECOMPACT_LLM_SETTINGS = {
  contextWindow: 64_000,
  profile: "anthropic",
  policy: "summary" as const,
  /** Delay per input token (the request body's characters / 4) before the fake model answers. */
  perInputTokenMs: 0.2,
  /** The scheduler's refreshTokens (its default: 8,000): a valid candidate is rewritten once this many stable tokens joined. */
  refreshTokens: 8_000,
};

/** What one run of the bench uses (PRECOMPACT_LLM_SETTINGS unless overridden). */
export type PrecompactLlmSettings = typeof PRECOMPACT_LLM_SETTINGS;

/** The goal: a hit's synchronous time at least this much below the cold compaction's. */
export const SAVING_GOAL = 0.9;

/** One batch compaction of the run with pre-compaction, beside the same-numbered one of the run without. */
export interface LlmCompactionRow {
  file: string;
  /** 1-based index of the compaction in the session. */
  index: number;
  requestIndex: number;
  use: "hit" | "miss";
  /** For a miss: its reason, and what the background jobs did since the previous compaction. */
  why?: string;
  deltaMessages?: number;
  /** For a hit: messages after the candidate left verbatim (the view had room without summarizing them). */
  keptVerbatim?: number;
  /** Input tokens of the delta request (0: the hit made no summarizer call) and of the cold request. */
  deltaInputTokens?: number;
  coldInputTokens?: number;
  /** Synchronous time of the compaction: a hit's commitMs, a miss's whole call. */
  syncMs: number;
  /** A hit's cold compaction of the same view (measured), and 1 − sync / cold. */
  coldMs?: number;
  saving?: number;
  /** The run without pre-compaction: the same-numbered compaction's request and synchronous time. */
  withoutRequestIndex?: number;
  withoutMs?: number;
}

/** The run over every transcript: the rows, the job outcomes, and the wall time of the whole bench. */
export interface PrecompactLlmResult {
  settings: PrecompactLlmSettings;
  rows: LlmCompactionRow[];
  jobs: Record<string, number>;
  /** Background summarizer time (stored jobs and wasted ones). */
  backgroundMs: number;
  wallMs: number;
}

const completion = {
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1,
  model: "fake-latency-model",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: SUMMARY_SECTIONS.map((t) => `## ${t}\n${t === "Current State" ? "Work in progress." : "None"}`).join(
          "\n\n",
        ),
        refusal: null,
      },
      finish_reason: "stop",
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

/** What both replays of a session share: the policy, profile, window and the slow summarizer. */
interface ReplayCommon {
  policy: "summary";
  profile: ProviderProfile;
  contextWindow: number;
  summarizer: Summarizer;
}

/** The main sessions of the real Claude Code transcripts (top-level files: subagent folders are left out). */
function claudeCodeSessions(): { file: string; source: ImportedSession }[] {
  return realTranscriptFiles()
    .filter((f) => /^claude-code\/[^/]+\/[^/]+\.jsonl$/.test(f))
    .flatMap((file) =>
      realSessions(file)
        .filter((s) => s.parentExternalId === undefined && canCompactInReplay(s))
        .map((source) => ({ file: `${file.split("/")[1]}/${file.split("/").at(-1)?.slice(0, 8)}`, source })),
    );
}

/** Replays every compacting main session with and without pre-compaction against the slow fake model. */
export async function runPrecompactLlmBench(
  overrides: Partial<PrecompactLlmSettings> = {},
): Promise<PrecompactLlmResult> {
  const settings = { ...PRECOMPACT_LLM_SETTINGS, ...overrides };
  const { perInputTokenMs } = settings;
  const started = performance.now();
  const provider = await startFakeProvider([{ body: completion }], "/v1", { perInputTokenMs });
  const summarizer = new OpenAICompatibleSummarizer({
    model: "fake-latency-model",
    baseURL: provider.baseURL,
    apiKey: "bench",
    maxRetries: 0,
  });
  const runtime = await openPalimpsest({ url: ":memory:" });
  const profile = profileNamed(settings.profile);
  const common: ReplayCommon = { policy: settings.policy, profile, contextWindow: settings.contextWindow, summarizer };
  const result: PrecompactLlmResult = { settings, rows: [], jobs: {}, backgroundMs: 0, wallMs: 0 };
  try {
    for (const { file, source } of claudeCodeSessions()) {
      progress(`precompact-llm: ${file} without pre-compaction`);
      const without = await replaySession(runtime, source, common);
      if (without.syncCompactions.length === 0) continue;
      progress(`precompact-llm: ${file} with pre-compaction (${without.syncCompactions.length} compactions cold)`);
      const rows = await withPrecompaction(runtime, source, provider, { ...common, settings }, result);
      for (const [i, row] of rows.entries()) {
        const cold = without.compactions.filter((c) => c.kind === "summary")[i];
        const sync = without.syncCompactions[i];
        result.rows.push({
          ...row,
          file,
          ...(cold === undefined || sync === undefined
            ? {}
            : { withoutRequestIndex: cold.requestIndex, withoutMs: sync.ms }),
        });
      }
    }
  } finally {
    await runtime.close();
    await provider.close();
  }
  result.wallMs = performance.now() - started;
  return result;
}

/** One replay with a scheduler: a row per batch compaction, from the scheduler's events and the server's requests. */
async function withPrecompaction(
  runtime: Palimpsest,
  source: ImportedSession,
  provider: FakeProvider,
  options: ReplayCommon & { settings: PrecompactLlmSettings },
  result: PrecompactLlmResult,
): Promise<Omit<LlmCompactionRow, "file">[]> {
  const { settings, ...common } = options;
  const scheduler = new PrecompactionScheduler({
    candidates: runtime.store,
    compaction: common,
    precompact: { debounceMs: 0, refreshTokens: settings.refreshTokens },
  });
  const uses: Omit<LlmCompactionRow, "file" | "index" | "requestIndex" | "syncMs">[] = [];
  let jobsSince: string[] = [];
  const subscription = scheduler.events$.subscribe((event: PrecompactEvent) => {
    if (event.type === "job") {
      result.jobs[event.outcome] = (result.jobs[event.outcome] ?? 0) + 1;
      result.backgroundMs += event.summaryMs;
      jobsSince.push(event.outcome === "skipped" ? `skipped (${event.reason})` : event.outcome);
      return;
    }
    // The scheduler's events come after the compaction's own requests: the cold one last, the delta before it.
    const last = provider.received.at(-1)?.inputTokens ?? 0;
    if (event.type === "hit") {
      const delta = event.deltaMessages > 0 ? (provider.received.at(-2)?.inputTokens ?? 0) : 0;
      uses.push({
        use: "hit",
        deltaMessages: event.deltaMessages,
        keptVerbatim: event.keptVerbatim,
        deltaInputTokens: delta,
        coldInputTokens: last,
        coldMs: event.coldMs,
        saving: 1 - event.commitMs / event.coldMs,
      });
    } else uses.push({ use: "miss", why: `${event.reason}; jobs since the last compaction: ${tally(jobsSince)}` });
    jobsSince = [];
  });
  try {
    const replay = await replaySession(runtime, source, { ...common, precompact: scheduler });
    const summaries = replay.compactions.filter((c) => c.kind === "summary");
    return replay.syncCompactions.map((sync, i) => ({
      index: i + 1,
      requestIndex: summaries[i]?.requestIndex ?? -1,
      syncMs: sync.ms,
      ...(uses[i] ?? { use: "miss", why: "no scheduler event" }),
    }));
  } finally {
    subscription.unsubscribe();
    scheduler.dispose();
  }
}

/** "3 × stored, 25 × skipped (…)" from a list of outcomes. */
function tally(outcomes: readonly string[]): string {
  if (outcomes.length === 0) return "none";
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts].map(([o, n]) => `${n} × ${o}`).join(", ");
}

/** The per-compaction table and a totals line. */
export function precompactLlmTable(result: PrecompactLlmResult): string {
  const rows = result.rows;
  const table = markdownTable(
    [
      "session",
      "#",
      "request",
      "use",
      "delta msgs summarized / kept verbatim",
      "delta / cold input tokens",
      "sync (hit: commitMs)",
      "cold, same view",
      "saving",
      "without: request, sync",
    ],
    rows.map((r) => [
      r.file,
      r.index,
      r.requestIndex,
      r.use === "hit" ? "hit" : `miss: ${r.why}`,
      r.deltaMessages === undefined ? "–" : `${r.deltaMessages} / ${r.keptVerbatim ?? 0}`,
      r.coldInputTokens === undefined ? "–" : `${num(r.deltaInputTokens ?? 0)} / ${num(r.coldInputTokens)}`,
      ms(r.syncMs),
      r.coldMs === undefined ? "–" : ms(r.coldMs),
      r.saving === undefined ? "–" : `${num(r.saving * 100, 1)}%${r.saving >= SAVING_GOAL ? "" : " (< 90%)"}`,
      r.withoutMs === undefined ? "–" : `${r.withoutRequestIndex}, ${ms(r.withoutMs)}`,
    ]),
  );
  const hits = rows.filter((r) => r.use === "hit");
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  const pooled = hits.length === 0 ? 0 : 1 - sum(hits.map((r) => r.syncMs)) / sum(hits.map((r) => r.coldMs ?? 0));
  const totals =
    `${hits.length} hits of ${rows.length} compactions, ${hits.filter((r) => (r.saving ?? 0) >= SAVING_GOAL).length} at ≥ 90%; ` +
    `pooled over hits: ${num(pooled * 100, 1)}% less; jobs ${tally(Object.entries(result.jobs).flatMap(([o, n]) => Array<string>(n).fill(o)))}; ` +
    `background summarizer ${ms(result.backgroundMs)}; bench wall ${ms(result.wallMs)} at ${result.settings.perInputTokenMs} ms per input token, refreshTokens ${num(result.settings.refreshTokens)}.`;
  return `${table}\n\n${totals}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [delay, refresh] = process.argv.slice(2).map(Number);
  const overrides = {
    ...(delay === undefined ? {} : { perInputTokenMs: delay }),
    ...(refresh === undefined ? {} : { refreshTokens: refresh }),
  };
  console.log(precompactLlmTable(await runPrecompactLlmBench(overrides)));
}
