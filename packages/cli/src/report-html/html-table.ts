import { escapeHtml } from "./escape-html.ts";
import type { ReportTable } from "./report-data.ts";

/** A report table as HTML: caption, a header row of `th scope="col"`, numbers right-aligned. */
export function htmlTable(table: ReportTable, className = "data"): string {
  const head = table.header.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join("");
  const body = table.rows
    .map(
      (row) =>
        `<tr>${row.map((c) => `<td${typeof c === "number" ? ' class="num"' : ""}>${escapeHtml(c)}</td>`).join("")}</tr>`,
    )
    .join("\n");
  return `<table class="${className}"><caption>${escapeHtml(table.caption)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}
