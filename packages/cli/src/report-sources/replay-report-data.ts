import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CacheRules, ImportedSession, UsageComparison } from "@palimpsest/core";
import {
  cacheRulesForProfile,
  openPalimpsest,
  type ReplayOptions,
  type ReplayRunName,
  replayTranscript,
  resolveProfile,
  type TranscriptReplay,
} from "@palimpsest/store";
import { fidelityTable } from "../fidelity-table.ts";
import { replayMetricsTable } from "../replay-metrics-table.ts";
import type { ReportData, ReportSeries, ReportTable } from "../report-html/report-data.ts";
import { sessionSeries } from "../report-html/session-series.ts";

/**
 * Replays a transcript like `replay` does, one run per policy, each into its own throwaway SQLite file so
 * its sessions' logs can be read back afterwards; returns the replay and one report series per policy.
 */
export async function replayWithSeries(
  sessions: readonly ImportedSession[],
  options: Omit<ReplayOptions, "url" | "policies">,
  policies: readonly ReplayRunName[],
): Promise<{ replay: TranscriptReplay; series: ReportSeries[] }> {
  const rules = cacheRulesForProfile(
    resolveProfile(options.profile === undefined ? {} : { profile: options.profile }, undefined),
  );
  const order = sessions.map((s) => s.externalId);
  const replay: TranscriptReplay = {
    policies: [],
    usageComparison: null,
    cacheModel: [],
    models: { agent: null, summarizer: null },
  };
  const series: ReportSeries[] = [];
  for (const policy of policies) {
    const dir = await mkdtemp(join(tmpdir(), "palimpsest-report-"));
    try {
      const url = join(dir, "replay.db");
      const run = await replayTranscript(sessions, { ...options, policies: [policy], url });
      replay.policies.push(...run.policies);
      replay.usageComparison = run.usageComparison;
      replay.cacheModel = run.cacheModel;
      replay.models = run.models;
      series.push({ label: policy, ...(await seriesFromStore(url, rules, order)) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return { replay, series };
}

/** The requests and compactions of every replay session in a store, in the transcript's session order. */
async function seriesFromStore(
  url: string,
  rules: CacheRules,
  order: readonly string[],
): Promise<Omit<ReportSeries, "label">> {
  const runtime = await openPalimpsest({ url });
  try {
    const streams = await Promise.all(
      (await runtime.store.listSessions()).map((s) => runtime.store.readStream(s.sessionId)),
    );
    const rank = (events: (typeof streams)[number]): number => {
      const first = events[0];
      const id = first?.type === "session.started" ? first.data.source?.externalId : undefined;
      return id === undefined ? order.length : order.indexOf(id);
    };
    streams.sort((a, b) => rank(a) - rank(b));
    const out: Omit<ReportSeries, "label"> = { requests: [], compactions: [] };
    for (const events of streams) {
      const one = sessionSeries(events, rules, out.requests.length);
      out.requests.push(...one.requests);
      out.compactions.push(...one.compactions);
    }
    return out;
  } finally {
    await runtime.close();
  }
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
