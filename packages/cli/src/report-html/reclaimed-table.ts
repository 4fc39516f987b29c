import { escapeHtml } from "./escape-html.ts";
import type { ReportSeries } from "./report-data.ts";
import { seriesColor } from "./series-colors.ts";

/** Rows shown per series; the rest are counted in a note (a long micro run has thousands of passes). */
const RECLAIMED_ROWS_PER_SERIES = 200;

/**
 * Tokens reclaimed per compaction event as a table with a bar per row (width relative to the largest
 * reclaim in the report; a pass that added tokens shows a hatched bar).
 */
export function reclaimedTable(series: readonly ReportSeries[]): string {
  const all = series.flatMap((s) => s.compactions);
  if (all.length === 0) return `<p class="note">No compactions.</p>`;
  const largest = Math.max(1, ...all.map((c) => Math.abs(c.tokensBefore - c.tokensAfter)));
  const rows: string[] = [];
  const notes: string[] = [];
  for (const [i, s] of series.entries()) {
    for (const c of s.compactions.slice(0, RECLAIMED_ROWS_PER_SERIES)) {
      const reclaimed = c.tokensBefore - c.tokensAfter;
      const width = ((Math.abs(reclaimed) / largest) * 100).toFixed(1);
      const bar = `<span class="bar${reclaimed < 0 ? " negative" : ""}" style="width:${width}%;background-color:${seriesColor(i)}"></span>`;
      rows.push(
        `<tr><td>${escapeHtml(s.label)}</td><td class="num">${c.x - 0.5}</td><td>${escapeHtml(c.mode)}</td>` +
          `<td class="num">${c.tokensBefore}</td><td class="num">${c.tokensAfter}</td><td class="num">${reclaimed}</td><td class="bar-cell">${bar}</td></tr>`,
      );
    }
    const hidden = s.compactions.length - RECLAIMED_ROWS_PER_SERIES;
    if (hidden > 0) notes.push(`${escapeHtml(s.label)}: ${hidden} more compactions not listed`);
  }
  const header = ["series", "after request", "mode", "tokens before", "tokens after", "reclaimed", ""]
    .map((h) => `<th scope="col">${h}</th>`)
    .join("");
  return [
    `<table class="data reclaimed"><caption>One row per compaction event, in order</caption>`,
    `<thead><tr>${header}</tr></thead><tbody>`,
    ...rows,
    "</tbody></table>",
    ...notes.map((n) => `<p class="note">${n}</p>`),
  ].join("\n");
}
