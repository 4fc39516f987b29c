import type { StoredEvent } from "@palimpsest/core";
import { cacheRulesForProfile } from "@palimpsest/eval";
import { type Palimpsest, resolveProfile, type Session, sessionThreshold } from "@palimpsest/runtime";
import type { ReportData, ReportSeries, ReportTable } from "../report-html/report-data.ts";
import { providerUsage } from "../report-html/series-figures.ts";
import { sessionSeries } from "../report-html/session-series.ts";
import { resumeByPrefix } from "../runtime.ts";

/** A stored session as `report` reads it: resumed, and its whole log. */
export interface ReportSession {
  session: Session;
  events: readonly StoredEvent[];
}

/** Resumes each session `ids` names (ids, unique prefixes or names) and reads its log: once for the whole report. */
export async function readReportSessions(runtime: Palimpsest, ids: readonly string[]): Promise<ReportSession[]> {
  const sessions: ReportSession[] = [];
  for (const id of ids) {
    const session = await resumeByPrefix(runtime, id);
    sessions.push({ session, events: await runtime.store.readStream(session.id) });
  }
  return sessions;
}

/**
 * The report of stored sessions: a series per session folded from its log, the cache model run with its
 * profile's rules, and a table of the model's cache figures next to the provider's.
 */
export function sessionReportData(sessions: readonly ReportSession[]): ReportData {
  const series: ReportSeries[] = [];
  const facts: string[] = [];
  for (const { session, events } of sessions) {
    const started = session.state.started;
    const profile = resolveProfile({}, started);
    series.push({ label: started?.title ?? session.id, ...sessionSeries(events, cacheRulesForProfile(profile)) });
    const model = started?.model === undefined ? "" : `model ${started.model}, `;
    facts.push(`${model}profile ${profile.name}, compaction threshold ${sessionThreshold(session)}`);
  }
  const only = series.length === 1 ? series[0] : undefined;
  return {
    title: only === undefined ? `${series.length} sessions` : `Session ${only.label}`,
    subtitle: facts.join("; "),
    series,
    tables: [cacheTable(series)],
  };
}

/** Per session: the cache model's hits, reads, writes and breaks beside the provider's reported figures. */
function cacheTable(series: readonly ReportSeries[]): ReportTable {
  const rows = series.flatMap((s) => {
    const usage = providerUsage(s);
    return [
      [
        s.label,
        "cache model",
        s.figures.turns,
        s.requests.filter((r) => r.model.cachedTokens > 0).length,
        s.figures.cachedTokens,
        s.figures.cacheWriteTokens,
        s.figures.cacheBreaks,
      ],
      [s.label, "provider usage", usage.requests, usage.cacheHits, usage.cacheReadTokens, usage.cacheWriteTokens, "-"],
    ];
  });
  return {
    caption: "Cache: the model's estimate vs the provider's usage",
    header: ["series", "source", "requests", "cache hits", "cache read tokens", "cache write tokens", "cache breaks"],
    rows,
  };
}
