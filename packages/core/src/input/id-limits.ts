import { ValidationError, type ValidationIssue } from "../errors.ts";

/**
 * The longest id of each kind a write takes, in UTF-16 code units (JavaScript's `length`: an emoji
 * counts 2), the same on both engines. They come from PostgreSQL's btree indexes, whose entries hold at
 * most 2704 bytes (two text columns: 2688 bytes of data), and a code unit is at most 3 bytes of UTF-8:
 *
 * - Every key holds the tenant (migration 0016): 100 → 300 bytes.
 * - `log_keys (session_id, tenant_id, key)`, the largest entry: a session id (256 → 768 bytes), the
 *   tenant and a message, tool call, turn or compaction id behind its prefix (`compaction:` + 512 → 1547
 *   bytes): 2615 bytes at worst, 2644 with the entry's per-column lengths, alignment and header.
 * - `idempotency_keys (session_id, tenant_id, idempotency_key)`: 768 + 300 + 1152 bytes; `audit_supersessions`
 *   and `audit_replacements (session_id, tenant_id, message_id)`: 768 + 300 + 1536; `sessions` and the
 *   rest: a session id and the tenant.
 *
 * Ids the runtime derives from these fit them: a keyed append's `<key>#<i>` message ids (384 + 1 + digits),
 * a fork's `fork:<session>:<seq>` and a hand-off's `handoff:<session>` idempotency keys, and the message
 * and compaction ids a compaction derives (bounded, see derived-id.ts). Causation and correlation ids sit
 * in no index; they have limits of their own so that no id is unbounded.
 */
export const ID_LIMITS = {
  /** A session id, and every id naming one: its name, a fork's or hand-off successor's id, a parent link. */
  session: 256,
  /** An append's or rewrite's idempotency key (an OpenAI Agents history transaction's `operationId`). */
  idempotencyKey: 384,
  message: 512,
  /** A tool call's id and a tool result's `toolCallId` (an Agents item's call id, an AI SDK `toolCallId`). */
  toolCall: 512,
  turn: 512,
  compaction: 512,
  /** The tenant a store serves (OpenEventStoreOptions.tenant): in every key, beside the longest ids. */
  tenant: 100,
  causation: 512,
  correlation: 512,
  /** A queued hand-off's `target` (the platform or process kind that should claim it). */
  handoffTarget: 256,
} as const;

/** A kind of id, by its limit in ID_LIMITS. */
export type IdKind = keyof typeof ID_LIMITS;

/** What each kind of id is called in an issue's message. */
const ID_NAMES: { [K in IdKind]: string } = {
  session: "a session id",
  idempotencyKey: "an idempotency key",
  message: "a message id",
  toolCall: "a tool call id",
  turn: "a turn id",
  compaction: "a compaction id",
  tenant: "a tenant id",
  causation: "a causation id",
  correlation: "a correlation id",
  handoffTarget: "a hand-off target",
};

/** The issue of an id longer than its kind's limit, at `path`; undefined when it is within it (or not text). */
export function idLengthIssue(kind: IdKind, value: unknown, path: string): ValidationIssue | undefined {
  const limit = ID_LIMITS[kind];
  if (typeof value !== "string" || value.length <= limit) return undefined;
  return {
    path,
    code: "too_big",
    message: `${ID_NAMES[kind]} is at most ${limit} UTF-16 code units long; this one has ${value.length}`,
  };
}

/** The ValidationError of one issue, with `details.path` at it. */
export function issueError(what: string, issue: ValidationIssue): ValidationError {
  return new ValidationError(`invalid ${what}: ${issue.path}: ${issue.message}`, [issue], { path: issue.path });
}

/** Throws ValidationError at `path` when `value` is longer than `kind`'s limit (see ID_LIMITS). */
export function checkIdLength(kind: IdKind, value: unknown, path: string): void {
  const issue = idLengthIssue(kind, value, path);
  if (issue !== undefined) throw issueError("id", issue);
}
