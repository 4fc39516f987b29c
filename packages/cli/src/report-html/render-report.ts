import { cacheCounts, cacheStrip } from "./cache-strip.ts";
import { escapeHtml } from "./escape-html.ts";
import { htmlTable } from "./html-table.ts";
import { promptChart } from "./prompt-chart.ts";
import { reclaimedTable } from "./reclaimed-table.ts";
import type { ReportData, ReportSeries, ReportTable } from "./report-data.ts";
import { REPORT_CSS } from "./report-styles.ts";
import { REAL_USAGE_COLOR, seriesColor } from "./series-colors.ts";

/**
 * Renders a report as one self-contained HTML page: inline CSS and SVG only, no script, no external URL;
 * every string from a transcript or a log is escaped.
 */
export function renderReport(data: ReportData): string {
  const hasReal = data.series.some((s) => s.requests.some((r) => r.real !== undefined));
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(data.title)}</title><style>${REPORT_CSS}</style></head><body>`,
    `<h1>${escapeHtml(data.title)}</h1>`,
    `<p class="subtitle">${escapeHtml(data.subtitle)}</p>`,
    htmlTable(summaryTable(data.series)),
    "<h2>Prompt tokens per request</h2>",
    `<figure>${promptChart(data.series)}<figcaption>${legend(data.series, hasReal)}</figcaption></figure>`,
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

function summaryTable(series: readonly ReportSeries[]): ReportTable {
  return {
    caption: "Overview",
    header: [
      "series",
      "requests",
      "compactions",
      "tokens reclaimed",
      "peak view tokens",
      "provider cache hits",
      "model cache breaks",
    ],
    rows: series.map((s) => {
      const c = cacheCounts(s);
      return [
        s.label,
        s.requests.length,
        s.compactions.length,
        s.compactions.reduce((n, p) => n + p.tokensBefore - p.tokensAfter, 0),
        Math.max(0, ...s.requests.map((r) => r.viewTokens)),
        c.realKnown === 0 ? "-" : `${c.realHits} of ${c.realKnown}`,
        c.modelBreaks,
      ];
    }),
  };
}

function legend(series: readonly ReportSeries[], hasReal: boolean): string {
  const items = series.map(
    (s, i) =>
      `<li><span class="swatch" style="background:${seriesColor(i)}"></span>${escapeHtml(s.label)} (view tokens)</li>`,
  );
  if (hasReal) {
    items.push(
      `<li><span class="swatch dashed" style="color:${REAL_USAGE_COLOR}"></span>provider's real prompt tokens</li>`,
    );
  }
  items.push(`<li><span class="swatch dot"></span>a compaction (hover for mode and tokens reclaimed)</li>`);
  return `<ul class="legend">${items.join("")}</ul>`;
}

function stripSection(s: ReportSeries): string {
  const c = cacheCounts(s);
  const real = c.realKnown === 0 ? "no provider usage recorded" : `provider cache hits ${c.realHits} of ${c.realKnown}`;
  return `<h3>${escapeHtml(s.label)}</h3><p class="note">${real}; ${c.modelBreaks} cache breaks by the cache model</p>${cacheStrip(s)}`;
}
