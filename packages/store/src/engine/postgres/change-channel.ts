import { createHash } from "node:crypto";

/**
 * Cross-process change notification on PostgreSQL. Every append's statement also runs
 * `pg_notify(CHANGES_CHANNEL, '<version> <change ref>')` (see changeRef), so the notification is sent on commit and
 * never for a rolled-back append. Notifications are wake-ups only, and the ones sent while the listening
 * connection was down are made up for when it is back: it re-reads which sessions changed since (see
 * ListeningConnection), so a watcher misses nothing across a dropped connection or a restart. They do not work
 * through poolers in transaction mode (PgBouncer drops LISTEN), and notifying commits take a global lock
 * at commit, so very high append concurrency on one database serializes its commits there.
 */
export const CHANGES_CHANNEL = "palimpsest_changes";

/** Session ids up to this many UTF-8 bytes travel whole; longer ones as a hash (payloads must stay < 8,000 bytes). */
export const MAX_INLINE_SESSION_ID_BYTES = 2000;

/**
 * How an append names its session in the payload: its tenant's tag (tenantTag), a space, then `=<id>`, or
 * `#<sha-256 hex>` for a long id. Every listener on the database hears every tenant's notifications;
 * a store delivers its own tenant's only.
 */
export function changeRef(tenant: string, sessionId: string): string {
  const session =
    Buffer.byteLength(sessionId) <= MAX_INLINE_SESSION_ID_BYTES ? `=${sessionId}` : `#${sha256Hex(sessionId)}`;
  return `${tenantTag(tenant)} ${session}`;
}

/** A tenant as notifications name it: a hash, so that a listener learns no other tenant's name. */
export function tenantTag(tenant: string): string {
  return sha256Hex(tenant).slice(0, 16);
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
