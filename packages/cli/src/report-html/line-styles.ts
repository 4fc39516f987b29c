import type { ReportSeries } from "./report-data.ts";
import { REAL_USAGE_COLOR, seriesColor } from "./series-colors.ts";

/** Dash patterns of the second, third, … of series whose lines coincide (the first is solid). */
const DASHES = ["", "9 5", "2 4", "12 4 2 4", "5 3 1 3"];
const WIDTH = 1.6;
/** How much wider each series under a coinciding one is drawn, so its colour shows on both sides. */
const WIDER = 2.4;
const MARK_RADIUS = 4.5;

/** How one series' view line and compaction marks are drawn, and which other series draw the same line. */
export interface LineStyle {
  color: string;
  width: number;
  /** An SVG stroke-dasharray; "" for a solid line. */
  dash: string;
  markRadius: number;
  /** Labels of the series whose line is the same as this one's (same requests, prompts and compactions). */
  coincidesWith: string[];
}

/** A series with the style it is drawn with. */
export interface StyledSeries {
  series: ReportSeries;
  style: LineStyle;
}

/**
 * Each series with its style. Series whose lines coincide (e.g. summary and prune-first when every compaction
 * ends the same) would hide one another: the first of them is drawn widest and solid, each later one
 * narrower and dashed on top of it, with smaller marks, so every colour stays visible.
 */
export function lineStyles(series: readonly ReportSeries[]): StyledSeries[] {
  const groups = new Map<string, number[]>();
  for (const [i, s] of series.entries()) {
    const key = lineKey(s);
    groups.set(key, [...(groups.get(key) ?? []), i]);
  }
  return series.map((s, i) => {
    const group = groups.get(lineKey(s)) ?? [i];
    const rank = group.indexOf(i);
    const above = group.length - 1 - rank;
    const style = {
      color: seriesColor(i),
      width: WIDTH + WIDER * above,
      dash: DASHES[rank % DASHES.length] ?? "",
      markRadius: MARK_RADIUS + 2 * above,
      coincidesWith: group.filter((j) => j !== i).map((j) => series[j]?.label ?? ""),
    };
    return { series: s, style };
  });
}

/** What a series' line is drawn from: its requests' prompts and its compactions' drops. */
function lineKey(s: ReportSeries): string {
  return JSON.stringify([
    s.requests.map((r) => [r.x, r.viewTokens, r.firstOfSession === true]),
    s.compactions.map((c) => [c.x, c.promptBefore, c.promptAfter]),
  ]);
}

/** One dashed line of the provider's real prompt tokens: the series whose requests carry that usage, and its colour. */
export interface RealUsageLine {
  labels: string[];
  requests: ReportSeries["requests"];
  color: string;
}

/**
 * The distinct real-usage lines of the series: series with the same usage (a replay's policies) share one,
 * grey when there is one line, in its series' colour when the series have usages of their own.
 */
export function realUsageLines(series: readonly ReportSeries[]): RealUsageLine[] {
  const lines = new Map<string, { labels: string[]; requests: ReportSeries["requests"]; index: number }>();
  for (const [index, s] of series.entries()) {
    if (!s.requests.some((r) => r.real !== undefined)) continue;
    const key = JSON.stringify(s.requests.map((r) => [r.x, r.real?.promptTokens ?? null]));
    const line = lines.get(key);
    if (line === undefined) lines.set(key, { labels: [s.label], requests: s.requests, index });
    else line.labels.push(s.label);
  }
  const all = [...lines.values()];
  return all.map((l) => ({ ...l, color: all.length === 1 ? REAL_USAGE_COLOR : seriesColor(l.index) }));
}
