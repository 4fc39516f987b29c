import {
  ClaimLost,
  ConcurrencyConflict,
  type ErrorCode,
  formatError,
  IdempotencyMismatch,
  InvariantViolation,
  isPalimpsestError,
  isSqliteAnswer,
  MessageSchema,
  NotFoundError,
  type PalimpsestError,
  ProjectionMoved,
  parseInput,
  parseTelemetryLines,
  reportError,
  StorageError,
  SummarizerError,
  type SummarizerFailure,
  ValidationError,
  type ValidationIssue,
} from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { expectError } from "../support/expect-error.ts";

/** One error of each class, built with `cause`, and the code, details and retryable flag it must have. */
const cases = (cause: unknown) =>
  [
    {
      error: new ValidationError("bad", ["x"], { cause, path: "p" }),
      code: "VALIDATION",
      details: { issues: [{ path: "", code: "custom", message: "x" }], path: "p" },
      retryable: false,
    },
    {
      error: new InvariantViolation("empty-message", "empty", { sessionId: "s", ids: ["m"] }, { cause }),
      code: "INVARIANT_VIOLATED",
      details: { rule: "empty-message", sessionId: "s", ids: ["m"] },
      retryable: false,
    },
    {
      error: new ConcurrencyConflict("s", "view-version", 3, 4, { cause }),
      code: "CONCURRENCY_CONFLICT",
      details: { sessionId: "s", subject: "view-version", expected: 3, actual: 4, reason: "precondition" },
      retryable: true,
    },

    {
      error: new ClaimLost("h", "lease-expired", "claimed", { cause }),
      code: "CLAIM_LOST",
      details: { handoffId: "h", reason: "lease-expired", status: "claimed" },
      retryable: false,
    },
    {
      error: new ProjectionMoved("audit", "moved; run it again", { cause }),
      code: "PROJECTION_MOVED",
      details: { projector: "audit" },
      retryable: true,
    },
    {
      error: new IdempotencyMismatch("s", "k", { cause }),
      code: "IDEMPOTENCY_MISMATCH",
      details: { sessionId: "s", idempotencyKey: "k" },
      retryable: false,
    },
    {
      error: new NotFoundError("session", "s", { cause }),
      code: "NOT_FOUND",
      details: { kind: "session", id: "s" },
      retryable: false,
    },
    {
      error: new StorageError("append", "gone", { cause, retryable: true }),
      code: "STORAGE",
      details: { operation: "append", retryable: true },
      retryable: true,
    },
    {
      error: new SummarizerError("timeout", "openai", "slow", { cause, retryAfterMs: 5 }),
      code: "SUMMARIZER",
      details: { reason: "timeout", provider: "openai", retryAfterMs: 5 },
      retryable: true,
    },
  ] satisfies { error: PalimpsestError; code: ErrorCode; details: object; retryable: boolean }[];

describe("error classes", () => {
  it("each class has its own code, one shape of details, a fixed retryable flag and takes a cause", () => {
    const cause = new Error("underneath");
    const all = cases(cause);
    expect(new Set(all.map((c) => c.code)).size).toBe(all.length);
    for (const { error, code, details, retryable } of all) {
      expect(error.code, error.name).toBe(code);
      expect(error.details, error.name).toStrictEqual(details);
      expect(error.retryable, error.name).toBe(retryable);
      expect(error.cause, error.name).toBe(cause);
      expect(isPalimpsestError(error, code)).toBe(true);
      expect(error.name).toBe(error.constructor.name);
    }
  });

  it("leaves `cause` unset when none is given", () => {
    for (const { error } of cases(undefined)) expect("cause" in error, error.name).toBe(false);
  });

  it("STORAGE is retryable as its details say, not retryable by default", () => {
    expect(new StorageError("read", "busy", { retryable: true }).retryable).toBe(true);
    expect(new StorageError("read", "corrupt", { retryable: false }).retryable).toBe(false);
    const plain = new StorageError("read", "corrupt");
    expect(plain.retryable).toBe(false);
    expect(plain.details.retryable).toBe(false);
  });

  it("SUMMARIZER is retryable unless the failure is auth or a refusal", () => {
    const expected: Record<SummarizerFailure, boolean> = {
      timeout: true,
      "rate-limited": true,
      empty: true,
      truncated: true,
      malformed: true,
      other: true,
      auth: false,
      refused: false,
    };
    for (const [reason, retryable] of Object.entries(expected)) {
      expect(new SummarizerError(reason as SummarizerFailure, "p", "m").retryable, reason).toBe(retryable);
    }
  });
});

describe("validation issues", () => {
  const badMessage = { id: "", role: "wizard", content: [{ type: "text", text: 5 }] };

  it("keep zod's issues structured (path, code, message) and the zod error as cause", () => {
    const error = expectError(
      () => parseInput(MessageSchema, badMessage, "message", "messages[2]"),
      "VALIDATION",
    ) as ValidationError;
    const { issues, path } = error.details;
    expect(issues.length).toBeGreaterThanOrEqual(2);
    const id = issues.find((i) => i.path === "messages[2].id");
    expect(id).toMatchObject({ code: "too_small" });
    for (const issue of issues) {
      expect(issue.path.startsWith("messages[2]"), issue.path).toBe(true);
      expect(issue.code).not.toBe("custom");
      expect(issue.message.length).toBeGreaterThan(0);
    }
    expect(path).toBe(issues[0]?.path);
    expect(error.message).toBe(`invalid message: ${issues[0]?.path}: ${issues[0]?.message}`);
    const cause = error.cause as { issues?: unknown[] } | undefined;
    expect(cause?.issues).toHaveLength(issues.length);
  });

  it("take hand-written ones as strings: `custom`, no path", () => {
    const error = new ValidationError("bad flags", [
      "--seq: not a number",
      { path: "x", code: "custom", message: "y" },
    ]);
    expect(error.details.issues).toStrictEqual([
      { path: "", code: "custom", message: "--seq: not a number" },
      { path: "x", code: "custom", message: "y" },
    ] satisfies ValidationIssue[]);
  });

  it("a malformed telemetry line names its line in each issue's path and keeps the cause", () => {
    const caught = expectError(
      () => parseTelemetryLines('{"kind":"nope"}\nnot json', { source: "t.jsonl" }),
      "VALIDATION",
    ) as ValidationError;
    expect(caught.details.path).toBe("t.jsonl");
    for (const issue of caught.details.issues) expect(issue.path).toMatch(/^line 1: /);
    expect(caught.cause).toBeInstanceOf(Error);
    const notJson = expectError(() => parseTelemetryLines("not json"), "VALIDATION") as ValidationError;
    expect(notJson.details.issues).toMatchObject([{ path: "line 1", code: "custom" }]);
    expect(notJson.cause).toBeInstanceOf(SyntaxError);
  });

  it("formatError prints `path: message` per issue (the message alone without a path)", () => {
    const error = new ValidationError("bad input", [
      { path: "messages[0].role", code: "invalid_value", message: "Invalid option" },
      "give exactly one of --seq, --time or --turn",
    ]);
    expect(formatError(error)).toBe(
      [
        "error [VALIDATION] bad input",
        "  - messages[0].role: Invalid option",
        "  - give exactly one of --seq, --time or --turn",
      ].join("\n"),
    );
  });
});

describe("ConcurrencyConflict", () => {
  it("says whether a precondition the caller gave went stale or the runtime's contention budget ran out", () => {
    const stale = new ConcurrencyConflict("s", "view-version", 3, 4);
    expect(stale.details.reason).toBe("precondition");
    expect(stale.message).toBe("view-version conflict on session s: expected 3, actual 4");
    const cause = new ConcurrencyConflict("s", "stream-version", 3, 9);
    const spent = new ConcurrencyConflict("s", "stream-version", 3, 9, {
      cause,
      contention: { attempts: 12, waitedMs: 30_000.4 },
    });
    expect(spent.details).toEqual({
      sessionId: "s",
      subject: "stream-version",
      expected: 3,
      actual: 9,
      reason: "contention",
      attempts: 12,
      waitedMs: 30_000,
    });
    expect(spent.retryable).toBe(true);
    expect(spent.cause).toBe(cause);
    expect(spent.message).toContain("12 attempts in 30000 ms");
  });
});

describe("reportError", () => {
  it("carries code, retryable and details down the cause chain", () => {
    const error = new ConcurrencyConflict("s", "stream-version", 1, 2, {
      cause: new StorageError("append", "gone", { retryable: true, cause: new Error("socket") }),
    });
    expect(reportError(error)).toStrictEqual({
      code: "CONCURRENCY_CONFLICT",
      message: error.message,
      retryable: true,
      details: { sessionId: "s", subject: "stream-version", expected: 1, actual: 2, reason: "precondition" },
      cause: {
        code: "STORAGE",
        message: "append: gone",
        retryable: true,
        details: { operation: "append", retryable: true },
        cause: { code: "INTERNAL", message: "socket" },
      },
    });
  });

  it("keeps a driver's or the system's own code on a cause, and formatError prints it in INTERNAL's place", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5433"), { code: "ECONNREFUSED" });
    const error = new StorageError("open", "connect ECONNREFUSED 127.0.0.1:5433", { cause: refused });
    expect(reportError(error).cause).toStrictEqual({
      code: "INTERNAL",
      message: "connect ECONNREFUSED 127.0.0.1:5433",
      details: { code: "ECONNREFUSED" },
    });
    expect(formatError(error)).toBe(
      [
        "error [STORAGE] open: connect ECONNREFUSED 127.0.0.1:5433",
        "  caused by [ECONNREFUSED] connect ECONNREFUSED 127.0.0.1:5433",
      ].join("\n"),
    );
    // First in the chain, a thrown error is a defect of ours whatever its code.
    expect(formatError(refused)).toBe("error [INTERNAL] connect ECONNREFUSED 127.0.0.1:5433");
  });

  it("leaves out a validation error's schema error: its issues are listed already", () => {
    const error = expectError(
      () => parseInput(MessageSchema, { role: "robot", content: [] }, "message"),
      "VALIDATION",
    ) as ValidationError;
    expect(error.cause).toBeInstanceOf(Error);
    expect(reportError(error).cause).toBeUndefined();
    expect(formatError(error)).toBe(
      [`error [VALIDATION] ${error.message}`, ...error.details.issues.map((i) => `  - ${i.path}: ${i.message}`)].join(
        "\n",
      ),
    );
    // Another cause of a VALIDATION (a driver's, a file's) is still shown.
    const fileError = new ValidationError("bad file", ["x"], { cause: new Error("EISDIR") });
    expect(formatError(fileError)).toContain("caused by [INTERNAL] EISDIR");
  });
});

describe("isSqliteAnswer", () => {
  it("is SQLite's own code, on the error or as a StorageError's cause; never a PostgreSQL or a network failure", () => {
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    expect(isSqliteAnswer(busy)).toBe(true);
    expect(isSqliteAnswer(new StorageError("append", "locked", { cause: busy, retryable: true }))).toBe(true);
    const dropped = Object.assign(new Error("Connection terminated"), { code: "ECONNRESET" });
    expect(isSqliteAnswer(new StorageError("append", "dropped", { cause: dropped, retryable: true }))).toBe(false);
    expect(isSqliteAnswer(Object.assign(new Error("shutdown"), { code: "57P01" }))).toBe(false);
    expect(isSqliteAnswer(new StorageError("append", "no cause"))).toBe(false);
    expect(isSqliteAnswer(undefined)).toBe(false);
  });
});
