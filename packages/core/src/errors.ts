/** Stable error codes: the whole taxonomy. Callers switch on `code`, never on message text. */
export type ErrorCode =
  | "VALIDATION"
  | "INVARIANT_VIOLATED"
  | "CONCURRENCY_CONFLICT"
  | "IDEMPOTENCY_MISMATCH"
  | "NOT_FOUND"
  | "STORAGE"
  | "SUMMARIZER";

/** Base of every error Palimpsest raises: data first (a `code` and typed `details`), message second. */
export class PalimpsestError<D extends object = Record<string, unknown>> extends Error {
  readonly code: ErrorCode;
  readonly details: D;

  constructor(code: ErrorCode, message: string, details: D, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/** Input that does not match a schema: bad role, malformed line, missing field. */
export class ValidationError extends PalimpsestError<{ issues: readonly string[]; path?: string }> {
  constructor(message: string, issues: readonly string[], options?: { cause?: unknown; path?: string }) {
    super("VALIDATION", message, options?.path === undefined ? { issues } : { issues, path: options.path }, options);
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
  | "unknown-turn"
  | "handoff-open"
  | "handoff-completing";

/** A command that would break an invariant of the session; nothing was written. */
export class InvariantViolation extends PalimpsestError<{
  rule: InvariantRule;
  sessionId?: string;
  ids?: readonly string[];
}> {
  constructor(rule: InvariantRule, message: string, details: { sessionId?: string; ids?: readonly string[] } = {}) {
    super("INVARIANT_VIOLATED", message, { rule, ...details });
  }
}

/** Optimistic concurrency lost: the stream or the view moved since the caller read it. */
export class ConcurrencyConflict extends PalimpsestError<{
  sessionId: string;
  subject: "stream-version" | "view-version";
  expected: number | "any" | "no-stream";
  actual: number;
}> {
  constructor(
    sessionId: string,
    subject: "stream-version" | "view-version",
    expected: number | "any" | "no-stream",
    actual: number,
  ) {
    super(
      "CONCURRENCY_CONFLICT",
      `${subject} conflict on session ${sessionId}: expected ${String(expected)}, actual ${actual}`,
      { sessionId, subject, expected, actual },
    );
  }
}

/** Why a hand-off claim no longer holds: another claim replaced it, its lease ran out, or the row is not claimed. */
export type ClaimLostReason = "token-mismatch" | "lease-expired" | "not-claimed";

/** A hand-off claimer acted on a claim that no longer holds (fencing); nothing was changed. */
export class ClaimLost extends PalimpsestError<{ handoffId: string; reason: ClaimLostReason; status: string }> {
  constructor(handoffId: string, reason: ClaimLostReason, status: string) {
    super("CONCURRENCY_CONFLICT", `the claim on hand-off ${handoffId} no longer holds (${reason}, status ${status})`, {
      handoffId,
      reason,
      status,
    });
  }
}

/** An idempotency key was reused with different content. */
export class IdempotencyMismatch extends PalimpsestError<{ sessionId: string; idempotencyKey: string }> {
  constructor(sessionId: string, idempotencyKey: string) {
    super(
      "IDEMPOTENCY_MISMATCH",
      `idempotency key ${idempotencyKey} was already used on session ${sessionId} with different content`,
      { sessionId, idempotencyKey },
    );
  }
}

/** A session, message, compaction, file, hand-off or event (a seq or turn) that does not exist. */
export class NotFoundError extends PalimpsestError<{
  kind: "session" | "message" | "compaction" | "file" | "handoff" | "event";
  id: string;
}> {
  constructor(
    kind: "session" | "message" | "compaction" | "file" | "handoff" | "event",
    id: string,
    options?: { cause?: unknown },
  ) {
    super("NOT_FOUND", `${kind} not found: ${id}`, { kind, id }, options);
  }
}

/**
 * The database failed or returned something unreadable; the cause is kept. `retryable` is true when the
 * failure is transient (a dropped connection, a server restarting, a lock wait that ran out): the same
 * call may be made again, and an append retried with its idempotency key completes without a duplicate.
 */
export class StorageError extends PalimpsestError<{ operation: string; retryable: boolean }> {
  constructor(operation: string, message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super("STORAGE", `${operation}: ${message}`, { operation, retryable: options?.retryable ?? false }, options);
  }
}

/** Why a summarizer call failed, classified so cooldowns and telemetry can depend on the class. */
export type SummarizerFailure = "timeout" | "auth" | "rate-limited" | "empty" | "truncated" | "refused" | "other";

/** A summarizer call failed; `reason` is the class, `retryAfterMs` what the provider asked for, if anything. */
export class SummarizerError extends PalimpsestError<{
  reason: SummarizerFailure;
  provider: string;
  retryAfterMs?: number;
}> {
  constructor(
    reason: SummarizerFailure,
    provider: string,
    message: string,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(
      "SUMMARIZER",
      `${provider} summarizer failed (${reason}): ${message}`,
      options?.retryAfterMs === undefined
        ? { reason, provider }
        : { reason, provider, retryAfterMs: options.retryAfterMs },
      options,
    );
  }
}

/** A read model's projector found its checkpoint moved by another projector mid-work; nothing was written. */
export class ProjectionMoved extends PalimpsestError<{ projector: string }> {
  constructor(projector: string, message: string) {
    super("CONCURRENCY_CONFLICT", message, { projector });
  }
}

/** True when `value` is a Palimpsest error, optionally of one code. */
export function isPalimpsestError(value: unknown, code?: ErrorCode): value is PalimpsestError {
  return value instanceof PalimpsestError && (code === undefined || value.code === code);
}
