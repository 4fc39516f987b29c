import { cacheStrip } from "./cache-strip.ts";
import { escapeHtml } from "./escape-html.ts";
import { htmlTable } from "./html-table.ts";
import { lineStyles, realUsageLines } from "./line-styles.ts";
import { promptChart } from "./prompt-chart.ts";
import { reclaimedTable } from "./reclaimed-table.ts";
import type { ReportData, ReportSeries, ReportTable } from "./report-data.ts";
import { REPORT_CSS } from "./report-styles.ts";
import { providerUsage } from "./series-figures.ts";

/**
 * Renders a report as one self-contained HTML page: inline CSS and SVG only, no script, no external URL;
 * every string from a transcript or a log is escaped.
 */
export function renderReport(data: ReportData): string {
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(data.title)}</title><style>${REPORT_CSS}</style></head><body>`,
    `<h1>${escapeHtml(data.title)}</h1>`,
    `<p class="subtitle">${escapeHtml(data.subtitle)}</p>`,
    `<div class="table-scroll">${htmlTable(summaryTable(data.series))}</div>`,
    "<h2>Prompt tokens per request</h2>",
    `<figure>${promptChart(data.series)}<figcaption>${legend(data.series)}</figcaption></figure>`,
    "<h2>Cache hits and breaks per request</h2>",
    `<ul class="legend"><li><span class="swatch" style="background:#2a9d55"></span>hit</li><li><span class="swatch" style="background:#c9c9c9"></span>miss</li><li><span class="swatch" style="background:#d62828"></span>cache break (model)</li><li><span class="swatch" style="background:#f1f1f1;outline:1px solid #ccc"></span>no usage recorded</li></ul>`,
    ...data.series.map(stripSection),
    "<h2>Tokens reclaimed per compaction</h2>",
    `<div class="table-scroll">${reclaimedTable(data.series)}</div>`,
    "<h2>Cache metrics</h2>",
    ...data.tables.map((t) => `<div class="table-scroll">${htmlTable(t)}</div>`),
    ...(data.fidelity === undefined || data.fidelity.length === 0
      ? []
      : ["<h2>Fidelity</h2>", ...data.fidelity.map((t) => `<div class="table-scroll">${htmlTable(t)}</div>`)]),
    "</body></html>",
    "",
  ].join("\n");
}

/** One row per series, every figure from its SeriesFigures (a replay's: the policy's metrics `replay` prints). */
function summaryTable(series: readonly ReportSeries[]): ReportTable {
  return {
    caption: "Overview",
    header: [
      "series",
      "turns",
      "compactions",
      "tokens reclaimed",
      "peak prompt tokens",
      "provider cache hits",
      "cache breaks",
    ],
    rows: series.map((s) => {
      const f = s.figures;
      return [s.label, f.turns, f.compactions, f.tokensReclaimed, f.peakPromptTokens, providerHits(s), f.cacheBreaks];
    }),
  };
}

/** "hits of requests with usage" for the overview and the strips; "-" without usage. */
function providerHits(s: ReportSeries): string {
  const usage = providerUsage(s);
  return usage.requests === 0 ? "-" : `${usage.cacheHits} of ${usage.requests}`;
}

/** The chart's legend: each series' line as drawn, a note for series drawn on one line, each real-usage line, the marks. */
function legend(series: readonly ReportSeries[]): string {
  const styled = lineStyles(series);
  const items = styled.map(
    ({ series: s, style }) =>
      `<li class="legend-series" data-series="${escapeHtml(s.label)}">${lineSwatch(style.color, style.width, style.dash)}${escapeHtml(s.label)}</li>`,
  );
  const shown = new Set<string>();
  for (const { series: s, style } of styled) {
    if (style.coincidesWith.length === 0 || shown.has(s.label)) continue;
    const group = [s.label, ...style.coincidesWith];
    for (const label of group) shown.add(label);
    items.push(
      `<li class="coincide-note">${escapeHtml(group.join(" = "))} here (the same line, drawn one over another)</li>`,
    );
  }
  const real = realUsageLines(series);
  for (const line of real) {
    const whose = real.length === 1 ? "" : `${line.labels.join(", ")}: `;
    items.push(`<li>${lineSwatch(line.color, 1.3, "5 4")}${escapeHtml(whose)}provider's real prompt tokens</li>`);
  }
  items.push(`<li><span class="swatch dot"></span>a compaction (hover for mode and tokens reclaimed)</li>`);
  return `<ul class="legend">${items.join("")}</ul>`;
}

/** A short sample of a line as the chart draws it (colour, width, dashes), for the legend. */
function lineSwatch(color: string, width: number, dash: string): string {
  const dashes = dash === "" ? "" : ` stroke-dasharray="${dash}"`;
  return `<svg class="swatch-line" width="30" height="10" aria-hidden="true"><line x1="0" y1="5" x2="30" y2="5" stroke="${color}" stroke-width="${width}"${dashes}/></svg>`;
}

function stripSection(s: ReportSeries): string {
  const hits = providerHits(s);
  const real = hits === "-" ? "no provider usage recorded" : `provider cache hits ${hits}`;
  return `<h3>${escapeHtml(s.label)}</h3><p class="note">${real}; ${s.figures.cacheBreaks} cache breaks by the cache model</p>${cacheStrip(s)}`;
}
