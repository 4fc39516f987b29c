import { resolve } from "node:path";
import type { CliIo } from "../cli-io.ts";
import { counted, emit, type GlobalOptions } from "../output.ts";
import { renderReport } from "../report-html/render-report.ts";
import type { ReportData } from "../report-html/report-data.ts";
import { writeAtomically } from "../write-atomically.ts";

/** What a command prints after writing an HTML report (`--json`: this object). */
interface WrittenReport {
  html: string;
  series: number;
  compactions: number;
}

/** Renders `data`, writes it to `path` (absolute, or relative to the process) whole or not at all, and prints where it went. */
export async function writeReport(io: CliIo, global: GlobalOptions, path: string, data: ReportData): Promise<void> {
  await writeAtomically(path, renderReport(data));
  const written: WrittenReport = {
    html: resolve(path),
    series: data.series.length,
    compactions: data.series.reduce((n, s) => n + s.compactions.length, 0),
  };
  emit(io, global, written, (w) => `wrote ${w.html} (${w.series} series, ${counted(w.compactions, "compaction")})`);
}
