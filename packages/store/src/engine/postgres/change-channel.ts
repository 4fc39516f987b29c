import { createHash } from "node:crypto";

/**
 * Cross-process change notification on PostgreSQL. Every append's statement also runs
 * `pg_notify(CHANGES_CHANNEL, '<version> <session ref>')`, so the notification is sent on commit and
 * never for a rolled-back append. Notifications are wake-ups only, and the ones sent while the listening
 * connection was down are made up for when it is back: it re-reads which sessions changed since (see
 * ListeningConnection), so a watcher misses nothing across a dropped connection or a restart. They do not work
 * through poolers in transaction mode (PgBouncer drops LISTEN), and notifying commits take a global lock
 * at commit, so very high append concurrency on one database serializes its commits there.
 */
export const CHANGES_CHANNEL = "palimpsest_changes";

/** Session ids up to this many UTF-8 bytes travel whole; longer ones as a hash (payloads must stay < 8,000 bytes). */
export const MAX_INLINE_SESSION_ID_BYTES = 2000;

/** How an append names its session in the payload: `=<id>`, or `#<sha-256 hex>` for a long id. */
export function sessionRef(sessionId: string): string {
  return Buffer.byteLength(sessionId) <= MAX_INLINE_SESSION_ID_BYTES
    ? `=${sessionId}`
    : `#${createHash("sha256").update(sessionId).digest("hex")}`;
}
