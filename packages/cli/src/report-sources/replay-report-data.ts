import type { ImportedSession, UsageComparison } from "@palimpsest/core";
import {
  type PolicyReplay,
  providerWindow,
  type ReplayOptions,
  type ReplayRunName,
  replayTranscript,
  type SessionReplay,
  type TranscriptReplay,
} from "@palimpsest/eval";
import { fidelityTable } from "../fidelity-table.ts";
import { replayMetricsTable } from "../replay-metrics-table.ts";
import type { ReportData, ReportSeries, ReportTable, SeriesFigures } from "../report-html/report-data.ts";

/**
 * Replays a transcript like `replay` does and returns the replay with one report series per policy, built
 * from the same run: each request's cache estimate and each compaction the policy's metrics were counted from.
 * A caller's own `onSessionReplayed` is called too, with every session's replay.
 */
export async function replayWithSeries(
  sessions: readonly ImportedSession[],
  options: Omit<ReplayOptions, "policies">,
  policies: readonly ReplayRunName[],
): Promise<{ replay: TranscriptReplay; series: ReportSeries[] }> {
  const runs = new Map<string, SessionReplay[]>();
  const replay = await replayTranscript(sessions, {
    ...options,
    policies,
    onSessionReplayed: (run, policy) => {
      runs.set(policy, [...(runs.get(policy) ?? []), run]);
      options.onSessionReplayed?.(run, policy);
    },
  });
  // A policy named twice replays every session twice, in order: each of its rows takes the next sessions.
  const series = replay.policies.map((p) => replaySeries(p, runs.get(p.policy)?.splice(0, sessions.length) ?? []));
  return { replay, series };
}

/**
 * One policy's series: its sessions' requests one after the other on one x axis, each at its cache estimate
 * (provider tokens, fixed prefix included), each compaction's drop converted to the same units, and the
 * policy's own metrics as the figures.
 */
function replaySeries(policy: PolicyReplay, runs: readonly SessionReplay[]): ReportSeries {
  const series: ReportSeries = { label: policy.policy, requests: [], compactions: [], figures: policyFigures(policy) };
  for (const run of runs) {
    const offset = series.requests.length;
    for (const [i, estimate] of run.estimates.entries()) {
      const usage = run.realUsage[i];
      series.requests.push({
        x: offset + i + 1,
        viewTokens: estimate.promptTokens,
        model: {
          cachedTokens: estimate.cachedTokens,
          cacheWriteTokens: estimate.cacheWriteTokens,
          cacheBreak: estimate.cacheBreak,
        },
        ...(i === 0 ? { firstOfSession: true as const } : {}),
        ...(usage?.promptTokens === undefined
          ? {}
          : {
              real: {
                promptTokens: usage.promptTokens,
                cacheReadTokens: usage.cacheReadTokens ?? 0,
                cacheWriteTokens: usage.cacheWriteTokens ?? 0,
              },
            }),
      });
    }
    for (const c of run.compactions) {
      series.compactions.push({
        // It ran after request requestIndex + 1 (1-based) and shaped the next one.
        x: offset + c.requestIndex + 1.5,
        mode: c.kind,
        tokensBefore: c.tokensBefore,
        tokensAfter: c.tokensAfter,
        promptBefore: providerWindow(c.tokensBefore, run.cacheModel),
        promptAfter: providerWindow(c.tokensAfter, run.cacheModel),
      });
    }
  }
  return series;
}

/** A policy's figures as `replay` prints them: the same numbers in the overview, the strips and the tables. */
function policyFigures(p: PolicyReplay): SeriesFigures {
  return {
    turns: p.turns,
    compactions: p.compressionEvents,
    tokensReclaimed: p.tokensReclaimed,
    peakPromptTokens: p.peakPromptTokens,
    cacheBreaks: p.cacheBreaks,
    cachedTokens: p.cachedTokens,
    cacheWriteTokens: p.cacheWriteTokens,
  };
}

/** The report of a replay comparison: a series per policy, the metrics table `replay` prints, and the usage check. */
export function replayReportData(file: string, replay: TranscriptReplay, series: ReportSeries[]): ReportData {
  const first = replay.policies[0];
  const metrics = replayMetricsTable(replay.policies);
  const tables: ReportTable[] = [{ caption: "Cache metrics per policy (as replay --compare prints them)", ...metrics }];
  if (replay.cacheModel.length > 0) tables.push(cacheModelTable(replay));
  if (replay.usageComparison !== null) tables.push(usageTable(replay.usageComparison));
  const threshold = first?.threshold ?? null;
  const fidelity = fidelityTable(replay.policies.map((p) => ({ label: p.policy, fidelity: p.fidelity })));
  return {
    title: `Replay of ${file}`,
    subtitle:
      first === undefined
        ? "no policies"
        : `profile ${first.profile}, context window ${first.contextWindow}${threshold === null ? "" : `, threshold ${threshold}`}; requests of every session in transcript order`,
    series,
    tables,
    fidelity: [
      {
        caption: "Fidelity per policy: mean recall over requests, and what compactions kept of what they removed",
        ...fidelity,
      },
    ],
  };
}

function usageTable(usage: UsageComparison): ReportTable {
  const row = (name: string, f: UsageComparison["cacheRead"]): (string | number)[] => [
    name,
    f.estimatedTotal,
    f.realTotal,
    f.ratio === null ? "-" : f.ratio.toFixed(2),
    Math.round(f.meanAbsoluteError),
  ];
  return {
    caption: `Cache model vs provider usage (${usage.turns} requests before the source's own compaction)`,
    header: ["figure", "estimated", "real", "ratio", "mean abs error / request"],
    rows: [
      row("cache read", usage.cacheRead),
      row("cache write", usage.cacheWrite),
      row("input", usage.input),
      ...(usage.cost === null
        ? []
        : [
            [
              "cost USD (output included)",
              usage.cost.estimatedTotal.toFixed(2),
              usage.cost.realTotal.toFixed(2),
              usage.cost.ratio === null ? "-" : usage.cost.ratio.toFixed(2),
              usage.cost.meanAbsoluteError.toFixed(4),
            ],
          ]),
    ],
  };
}

/** Per session: the token scale and fixed prefix fitted on its usage, the cache lifetime, and whether it had times. */
function cacheModelTable(replay: TranscriptReplay): ReportTable {
  const { agent, summarizer } = replay.models;
  return {
    caption: `Cache model per session (prices: agent ${agent ?? "per request from the transcript"}, summarizer ${summarizer ?? "the profile's"}; untimed sessions never expire)`,
    header: [
      "session",
      "token scale",
      "fitted on",
      "fixed prefix",
      "already cached",
      "prefix resets",
      "TTL s",
      "TTL from",
      "timed",
      "window (our tokens)",
    ],
    rows: replay.cacheModel.map((s) => [
      s.externalId,
      s.tokenScale.toFixed(3),
      s.tokenScaleSource === "usage" ? s.calibrationRequests : "-",
      s.fixedPrefixTokens,
      s.warmPrefixTokens,
      s.prefixResets,
      s.ttlSeconds,
      s.ttlSource,
      s.timed ? "yes" : "no",
      s.budgetWindow,
    ]),
  };
}
