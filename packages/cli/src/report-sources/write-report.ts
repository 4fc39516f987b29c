import { resolve } from "node:path";
import { counted } from "../output.ts";
import { renderReport } from "../report-html/render-report.ts";
import type { ReportData } from "../report-html/report-data.ts";
import { writeAtomically } from "../write-atomically.ts";

/** What a command prints after writing an HTML report (`--json`: this object). */
export interface WrittenReport {
  html: string;
  series: number;
  compactions: number;
}

/** Renders `data` and writes it to `path` (absolute, or relative to the process) whole or not at all. */
export async function writeReport(path: string, data: ReportData): Promise<WrittenReport> {
  await writeAtomically(path, renderReport(data));
  return {
    html: resolve(path),
    series: data.series.length,
    compactions: data.series.reduce((n, s) => n + s.figures.compactions, 0),
  };
}

/** The line a command prints under its table once the report is written: where it went and what it holds. */
export function writtenLine(w: WrittenReport): string {
  return `wrote ${w.html} (${w.series} series, ${counted(w.compactions, "compaction")})`;
}
