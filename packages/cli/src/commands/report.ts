import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import {
  aggregateTelemetry,
  NotFoundError,
  parseTelemetryLines,
  type TelemetryLine,
  type TelemetryReport,
  type TelemetrySummary,
  telemetryFromLog,
  ValidationError,
} from "@palimpsest/core";
import { sessionThreshold } from "@palimpsest/runtime";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { emit, type GlobalOptions, table } from "../output.ts";
import { type ReportSession, readReportSessions, sessionReportData } from "../report-sources/session-report-data.ts";
import { writeReport, writtenLine } from "../report-sources/write-report.ts";
import { withRuntime } from "../runtime.ts";

interface ReportFlags {
  bySession?: boolean;
  skipInvalid?: boolean;
  html?: string;
}

/** What `report --json` prints: the aggregate and how many malformed file lines were skipped. */
type ReportOutput = TelemetryReport & { skippedLines: number };

/**
 * `report <telemetry.jsonl | session…>`: aggregates compaction telemetry read from JSON-lines files or
 * projected from sessions' logs (skipped passes never reach a log, so only files count them). With
 * `--html <file>`, also writes the sessions' HTML report (prompt tokens per request, compactions, cache).
 */
export function registerReport(program: Command, io: CliIo): void {
  program
    .command("report <sources...>")
    .description("aggregate compaction telemetry from .jsonl files or session ids/prefixes")
    .option("--by-session", "add a row per session")
    .option("--skip-invalid", "count and skip malformed telemetry lines instead of failing")
    .option("--html <file>", "also write a self-contained HTML report of the sessions to <file>")
    .action(async (sources: string[], flags: ReportFlags) => {
      const global = program.opts<GlobalOptions>();
      if (flags.html !== undefined) return htmlReport(io, global, sources, flags.html, flags.bySession === true);
      const lines: TelemetryLine[] = [];
      const sessions: string[] = [];
      let skippedLines = 0;
      for (const source of sources) {
        if (!(await isFile(resolve(io.cwd, source)))) {
          if (source.endsWith(".jsonl")) throw new NotFoundError("file", source);
          sessions.push(source);
          continue;
        }
        const parsed = parseTelemetryLines(await readFile(resolve(io.cwd, source), "utf8"), {
          source,
          skipInvalid: flags.skipInvalid === true,
        });
        lines.push(...parsed.lines);
        skippedLines += parsed.skipped;
      }
      if (sessions.length > 0)
        lines.push(
          ...(await withRuntime(global, io, async (runtime) =>
            sessionTelemetry(await readReportSessions(runtime, sessions)),
          )),
        );
      const report: ReportOutput = {
        ...aggregateTelemetry(lines, { bySession: flags.bySession === true }),
        skippedLines,
      };
      emit(io, global, report, render);
    });
}

/**
 * `report --html <file> <session…>`: prints the sessions' telemetry table as `report <session…>` does and writes
 * their HTML report (telemetry files have no per-request data); `--json` prints only where it went.
 */
async function htmlReport(
  io: CliIo,
  global: GlobalOptions,
  sources: readonly string[],
  path: string,
  bySession: boolean,
): Promise<void> {
  const files = [];
  for (const source of sources)
    if (source.endsWith(".jsonl") || (await isFile(resolve(io.cwd, source)))) files.push(source);
  if (files.length > 0) {
    throw new ValidationError("report --html takes session ids or prefixes, not telemetry files", files);
  }
  const { data, lines } = await withRuntime(global, io, async (runtime) => {
    const sessions = await readReportSessions(runtime, sources);
    return { data: sessionReportData(sessions), lines: sessionTelemetry(sessions) };
  });
  const written = await writeReport(resolve(io.cwd, path), data);
  const report: ReportOutput = { ...aggregateTelemetry(lines, { bySession }), skippedLines: 0 };
  emit(io, global, written, (w) => `${render(report)}\n\n${writtenLine(w)}`);
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** The telemetry projected from the sessions' logs. */
function sessionTelemetry(sessions: readonly ReportSession[]): TelemetryLine[] {
  return sessions.flatMap(({ session, events }) => telemetryFromLog(events, { threshold: sessionThreshold(session) }));
}

function render(report: ReportOutput): string {
  const skipped = report.skippedLines === 0 ? "" : ` (${report.skippedLines} malformed lines skipped)`;
  const parts = [
    `${report.passes} passes across ${report.sessions} sessions${skipped}`,
    table(["measure", "value"], summaryRows(report)),
  ];
  if (report.bySession !== undefined && report.bySession.length > 0) {
    parts.push(
      table(
        ["session", "passes", "outcomes", "tokens saved", "mean exchange", "p50 ms"],
        report.bySession.map((s) => [
          s.sessionId,
          s.passes,
          outcomeMix(s),
          s.tokensSaved,
          s.meanExchangeTokens ?? "-",
          s.durationMs?.p50 ?? "-",
        ]),
      ),
    );
  }
  return parts.join("\n\n");
}

function summaryRows(s: TelemetrySummary): (string | number)[][] {
  const d = s.durationMs;
  return [
    ["outcomes", outcomeMix(s) || "-"],
    ["net tokens saved", s.tokensSaved],
    ["mean exchange tokens", s.meanExchangeTokens ?? "-"],
    ["duration ms (mean / p50 / p95)", d === null ? "-" : `${d.mean} / ${d.p50} / ${d.p95}`],
    ...precompactRows(s),
  ];
}

/** Pre-compaction rows, only when some line carried its fields: hits, misses by reason, saved and wasted ms. */
function precompactRows(s: TelemetrySummary): (string | number)[][] {
  const p = s.precompact;
  if (p === undefined) return [];
  const misses = Object.entries(p.misses)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(", ");
  const age = p.candidateAgeMs;
  return [
    ["precompact hits", p.hits],
    ["precompact misses", misses || "-"],
    ["precompact saved ms", p.savedMs],
    ["precompact wasted ms", p.wastedMs],
    ["candidate age ms (mean / max)", age === null ? "-" : `${age.mean} / ${age.max}`],
  ];
}

function outcomeMix(s: TelemetrySummary): string {
  return Object.entries(s.outcomes)
    .filter(([, n]) => n > 0)
    .map(([outcome, n]) => `${outcome} ${n}`)
    .join(", ");
}
