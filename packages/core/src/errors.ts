/** Stable error codes: the whole taxonomy. Callers switch on `code`, never on message text. */
export type ErrorCode =
  | "VALIDATION"
  | "INVARIANT_VIOLATED"
  | "CONCURRENCY_CONFLICT"
  | "CLAIM_LOST"
  | "PROJECTION_MOVED"
  | "IDEMPOTENCY_MISMATCH"
  | "NOT_FOUND"
  | "STORAGE"
  | "SUMMARIZER";

/** What every error constructor takes last: the error that caused this one, kept as `cause`. */
export interface CauseOptions {
  cause?: unknown;
}

/**
 * Base of every error Palimpsest raises: data first (a `code` and typed `details`), message second.
 * `retryable` says whether making the same call again may succeed (after re-reading, for a conflict);
 * each code fixes it (see docs/library.md, "Errors"), STORAGE and SUMMARIZER by their details.
 */
export class PalimpsestError<D extends object = Record<string, unknown>> extends Error {
  readonly code: ErrorCode;
  readonly details: D;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, details: D, options?: CauseOptions & { retryable?: boolean }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = details;
    this.retryable = options?.retryable ?? false;
  }
}

/**
 * One problem found in input: where (`path`, e.g. `messages[0].content[1].text`; empty when the input as a
 * whole is wrong), zod's issue `code` (`custom` for the ones Palimpsest writes itself) and what is wrong.
 */
export interface ValidationIssue {
  path: string;
  code: string;
  message: string;
}

/**
 * Input that does not match a schema: bad role, malformed line, missing field. Each issue is structured
 * (ValidationIssue); one given as a string is a `custom` issue with that message and no path.
 */
export class ValidationError extends PalimpsestError<{ issues: readonly ValidationIssue[]; path?: string }> {
  constructor(
    message: string,
    issues: readonly (ValidationIssue | string)[],
    options?: CauseOptions & { path?: string },
  ) {
    const structured = issues.map((issue) =>
      typeof issue === "string" ? { path: "", code: "custom", message: issue } : issue,
    );
    super(
      "VALIDATION",
      message,
      options?.path === undefined ? { issues: structured } : { issues: structured, path: options.path },
      { cause: options?.cause },
    );
  }
}

/** The rules a view must keep (docs/architecture.md, "Invariants"), each with a stable name used in `details.rule`. */
export type InvariantRule =
  | "session-not-started"
  | "session-already-started"
  | "session-handed-off"
  | "session-erased"
  | "empty-message"
  | "duplicate-message-id"
  | "tool-result-without-live-call"
  | "duplicate-tool-result"
  | "duplicate-tool-call-id"
  | "tool-calls-without-results"
  | "supersede-target-not-live"
  | "supersede-splits-tool-pair"
  | "supersede-invalid"
  | "supersede-duplicates-marker"
  | "micro-absorbs-user-message"
  | "supersede-absorbs-last-exchange"
  | "compaction-grows-view"
  | "unknown-turn"
  | "log-key-taken"
  | "handoff-open"
  | "handoff-completing";

/** What an InvariantViolation names besides its rule: the session, the messages, a refused compaction's tokens. */
export type InvariantDetails = {
  sessionId?: string;
  ids?: readonly string[];
  /** `compaction-grows-view`: the view's tokens before and (had it been written) after the compaction. */
  tokensBefore?: number;
  tokensAfter?: number;
};

/** A command that would break an invariant of the session; nothing was written. */
export class InvariantViolation extends PalimpsestError<{ rule: InvariantRule } & InvariantDetails> {
  constructor(rule: InvariantRule, message: string, details: InvariantDetails = {}, options?: CauseOptions) {
    super("INVARIANT_VIOLATED", message, { rule, ...details }, { cause: options?.cause });
  }
}

/**
 * Why a write gave up on a conflict: `precondition`, a version the caller itself gave (an expected
 * version or seq, a compaction's basis view version) no longer holds; `contention`, the runtime re-read
 * and decided again for its whole contention timeout and other writers kept moving the session first.
 */
export type ConflictReason = "precondition" | "contention";

/** How long a write contended before it gave up (a `contention` conflict). */
export interface ContentionSpent {
  attempts: number;
  waitedMs: number;
}

/**
 * Optimistic concurrency lost: the stream or the view moved since the caller read it; nothing was written.
 * Retryable: for a `precondition` conflict, read again (refresh the session) and decide again on what is
 * there now; a `contention` conflict (the runtime already did that, for its whole contention timeout)
 * says the session is written faster than it can keep up: try again later.
 */
export class ConcurrencyConflict extends PalimpsestError<{
  sessionId: string;
  subject: "stream-version" | "view-version";
  expected: number | "any" | "no-stream";
  actual: number;
  reason: ConflictReason;
  attempts?: number;
  waitedMs?: number;
}> {
  constructor(
    sessionId: string,
    subject: "stream-version" | "view-version",
    expected: number | "any" | "no-stream",
    actual: number,
    options?: CauseOptions & { contention?: ContentionSpent },
  ) {
    const spent = options?.contention;
    super(
      "CONCURRENCY_CONFLICT",
      spent === undefined
        ? `${subject} conflict on session ${sessionId}: expected ${String(expected)}, actual ${actual}`
        : `session ${sessionId} kept moving: ${spent.attempts} attempts in ${Math.round(spent.waitedMs)} ms lost the race ` +
            `to other writers (last: ${subject} expected ${String(expected)}, actual ${actual}); nothing was written`,
      {
        sessionId,
        subject,
        expected,
        actual,
        reason: spent === undefined ? "precondition" : "contention",
        ...(spent === undefined ? {} : { attempts: spent.attempts, waitedMs: Math.round(spent.waitedMs) }),
      },
      { cause: options?.cause, retryable: true },
    );
  }
}

/** Why a hand-off claim no longer holds: another claim replaced it, its lease ran out, or the row is not claimed. */
export type ClaimLostReason = "token-mismatch" | "lease-expired" | "not-claimed";

/** What each reason says of the claim a claimer acted on. */
const CLAIM_LOST_WORDS: Record<ClaimLostReason, (handoffId: string) => string> = {
  "token-mismatch": (id) =>
    `the token is not the one of hand-off ${id}'s claim (it never held it, or a claim taken since has a new one)`,
  "lease-expired": (id) => `the claim on hand-off ${id} no longer holds: its lease ran out`,
  "not-claimed": (id) => `hand-off ${id} is not claimed`,
};

/**
 * A hand-off claimer acted on a claim that no longer holds (fencing); nothing was changed. Not retryable:
 * the claim is gone for good; claim again to get a new one.
 */
export class ClaimLost extends PalimpsestError<{ handoffId: string; reason: ClaimLostReason; status: string }> {
  constructor(handoffId: string, reason: ClaimLostReason, status: string, options?: CauseOptions) {
    super(
      "CLAIM_LOST",
      `${CLAIM_LOST_WORDS[reason](handoffId)} (${reason}, status ${status})`,
      { handoffId, reason, status },
      { cause: options?.cause },
    );
  }
}

/**
 * A name that names several things where one was asked for, so nothing was done: a session name (a
 * source's external id) several sessions share, an SDK session id mirrored under several project keys.
 * VALIDATION: `candidates` lists each (a session id, a project key), one issue each; name one of them.
 */
export class AmbiguousName extends PalimpsestError<{
  kind: "session" | "project-key";
  name: string;
  candidates: readonly string[];
  issues: readonly ValidationIssue[];
}> {
  constructor(kind: "session" | "project-key", name: string, candidates: readonly string[], message: string) {
    const issues = candidates.map((candidate) => ({ path: "", code: "custom", message: candidate }));
    super("VALIDATION", message, { kind, name, candidates, issues });
  }
}

/** An idempotency key was reused with different content. */
export class IdempotencyMismatch extends PalimpsestError<{ sessionId: string; idempotencyKey: string }> {
  constructor(sessionId: string, idempotencyKey: string, options?: CauseOptions) {
    super(
      "IDEMPOTENCY_MISMATCH",
      `idempotency key ${idempotencyKey} was already used on session ${sessionId} with different content`,
      { sessionId, idempotencyKey },
      { cause: options?.cause },
    );
  }
}

/**
 * A session, message, compaction, file, hand-off or event (a seq or turn) that does not exist; `hint`, when
 * given, says what to do about it and follows the message (`file not found: x.db; …`).
 */
export class NotFoundError extends PalimpsestError<{
  kind: "session" | "message" | "compaction" | "file" | "handoff" | "event";
  id: string;
}> {
  constructor(
    kind: "session" | "message" | "compaction" | "file" | "handoff" | "event",
    id: string,
    options?: CauseOptions & { hint?: string },
  ) {
    const hint = options?.hint === undefined ? "" : `; ${options.hint}`;
    super("NOT_FOUND", `${kind} not found: ${id}${hint}`, { kind, id }, { cause: options?.cause });
  }
}

/**
 * The database failed or returned something unreadable; the cause is kept. `retryable` is true when the
 * failure is transient (a dropped connection, a server restarting, a lock wait that ran out): the same
 * call may be made again, and an append retried with its idempotency key completes without a duplicate.
 */
export class StorageError extends PalimpsestError<{ operation: string; retryable: boolean }> {
  constructor(operation: string, message: string, options?: CauseOptions & { retryable?: boolean }) {
    const retryable = options?.retryable ?? false;
    super("STORAGE", `${operation}: ${message}`, { operation, retryable }, { cause: options?.cause, retryable });
  }
}

/**
 * Whether `error` is SQLite's own answer: it, or the cause of a StorageError, carries a `SQLITE_` code. A
 * retryable one is the busy wait running out, which wrote nothing after waiting the whole bound the caller
 * set: neither the store nor the runtime makes such a write again, as they do one whose connection dropped.
 */
export function isSqliteAnswer(error: unknown): boolean {
  const cause = error instanceof StorageError ? error.cause : error;
  const code = (cause as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_");
}

/** Why a summarizer call failed, classified so cooldowns and telemetry can depend on the class. */
export type SummarizerFailure =
  | "timeout"
  | "auth"
  | "rate-limited"
  | "empty"
  | "truncated"
  | "refused"
  /** The answer is not a summary of the required shape: a section missing, or over the budget. */
  | "malformed"
  | "other";

/**
 * The failure classes for which calling the summarizer again may succeed (after a cooldown, see
 * anti-thrash.ts): not `auth` (it fails until the configuration changes) nor `refused` (the same input is
 * refused again).
 */
const RETRYABLE_SUMMARIZER_FAILURES: ReadonlySet<SummarizerFailure> = new Set([
  "timeout",
  "rate-limited",
  "empty",
  "truncated",
  "malformed",
  "other",
]);

/**
 * A summarizer call failed; `reason` is the class, `retryAfterMs` what the provider asked for, if anything.
 * Retryable unless the reason is `auth` or `refused`.
 */
export class SummarizerError extends PalimpsestError<{
  reason: SummarizerFailure;
  provider: string;
  retryAfterMs?: number;
}> {
  constructor(
    reason: SummarizerFailure,
    provider: string,
    message: string,
    options?: CauseOptions & { retryAfterMs?: number },
  ) {
    super(
      "SUMMARIZER",
      `${provider} summarizer failed (${reason}): ${message}`,
      options?.retryAfterMs === undefined
        ? { reason, provider }
        : { reason, provider, retryAfterMs: options.retryAfterMs },
      { cause: options?.cause, retryable: RETRYABLE_SUMMARIZER_FAILURES.has(reason) },
    );
  }
}

/**
 * A read model's projector found its checkpoint moved by another projector mid-work; nothing was written.
 * Retryable: run the same work again.
 */
export class ProjectionMoved extends PalimpsestError<{ projector: string }> {
  constructor(projector: string, message: string, options?: CauseOptions) {
    super("PROJECTION_MOVED", message, { projector }, { cause: options?.cause, retryable: true });
  }
}

/** True when `value` is a Palimpsest error, optionally of one code. */
export function isPalimpsestError(value: unknown, code?: ErrorCode): value is PalimpsestError {
  return value instanceof PalimpsestError && (code === undefined || value.code === code);
}
