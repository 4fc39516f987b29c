import { isPalimpsestError, type ValidationIssue } from "./errors.ts";

/** A plain, JSON-safe form of any error: what CLIs print and logs keep (`retryable` for Palimpsest errors). */
export interface ErrorReport {
  code: string;
  message: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
  cause?: ErrorReport;
}

/** Turns any thrown value into an ErrorReport, following the `cause` chain. */
export function reportError(error: unknown, depth = 0): ErrorReport {
  if (isPalimpsestError(error)) {
    const report: ErrorReport = {
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      details: { ...error.details },
    };
    if (error.cause !== undefined && depth < 5 && !isSchemaErrorOf(error)) {
      report.cause = reportError(error.cause, depth + 1);
    }
    return report;
  }
  if (error instanceof Error) {
    const report: ErrorReport = { code: "INTERNAL", message: error.message };
    // A driver's or the system's error (ECONNREFUSED, PostgreSQL's 28P01, SQLITE_BUSY) keeps its own code.
    const own = (error as { code?: unknown }).code;
    if (typeof own === "string" && own !== "") report.details = { code: own };
    if (error.cause !== undefined && depth < 5) report.cause = reportError(error.cause, depth + 1);
    return report;
  }
  return { code: "INTERNAL", message: String(error) };
}

/**
 * Whether `error` is a VALIDATION whose cause is the schema's own error (zod's): its issues are the
 * error's `details.issues` already, so the report leaves that cause out (a JSON dump of them, labelled
 * INTERNAL, read as a defect).
 */
function isSchemaErrorOf(error: { code: string; cause?: unknown }): boolean {
  return error.code === "VALIDATION" && error.cause instanceof Error && error.cause.name === "ZodError";
}

/**
 * One readable line per error in the chain (plus its first validation issues, `path: message`), for
 * terminals. A cause that is another library's error with a code of its own shows that code, not INTERNAL
 * (which, first in the chain, is a defect of ours).
 */
export function formatError(error: unknown): string {
  const lines: string[] = [];
  for (let r: ErrorReport | undefined = reportError(error); r; r = r.cause) {
    const own = r.code === "INTERNAL" && lines.length > 0 ? r.details?.code : undefined;
    lines.push(
      `${lines.length === 0 ? "error" : "  caused by"} [${typeof own === "string" ? own : r.code}] ${r.message}`,
    );
    const issues = r.details?.issues;
    if (Array.isArray(issues)) for (const issue of issues.slice(0, 10)) lines.push(`  - ${issueLine(issue)}`);
  }
  return lines.join("\n");
}

/** A validation issue as one line: `path: message`, or the message alone for an issue without a path. */
function issueLine(issue: unknown): string {
  if (typeof issue !== "object" || issue === null) return String(issue);
  const { path, message } = issue as Partial<ValidationIssue>;
  return path === undefined || path === "" ? String(message) : `${path}: ${String(message)}`;
}
