import type { DroppedKey, EraseOptions, ErasureResult, MirrorKey, MirrorLogPort } from "@palimpsest/core";
import type { Palimpsest } from "../palimpsest/palimpsest.ts";

/** The reason recorded when a session is erased because its mirrored key was deleted (by a crashed delete, or under a fold). */
export const KEY_DELETED = "mirror key deleted";

/** What erasing a mirrored key did. */
export interface MirrorErasure {
  /** Keys whose entries were deleted (a main key counts with each of its subpaths). */
  keys: number;
  /** Palimpsest sessions erased now (sessions erased before are not counted again). */
  sessions: number;
}

/**
 * Erases a mirrored key: a main key with every subpath of its session, a subpath alone. First the keys are
 * dropped in one transaction (MirrorLogPort.drop: their entries deleted, their next generation begun, so `load`
 * finds nothing, `listSubkeys` and `listSessions` list nothing, and a later append starts afresh under new
 * session ids); then every Palimpsest session folded from them is erased to its skeleton (docs/erasure.md).
 * A key never written changes nothing. Crash-safe: a crash before the drop commits leaves the keys as they
 * were; one after it leaves sessions that `eraseLeftovers` (run when a SessionStore opens) or the next
 * erasure of the key finishes.
 */
export async function eraseMirrorKey(
  runtime: Palimpsest,
  log: MirrorLogPort,
  key: MirrorKey,
  reason?: string,
): Promise<MirrorErasure> {
  const dropped = await log.drop(key);
  return {
    keys: dropped.filter((k) => k.nextSeq > 0).length,
    sessions: await eraseDropped(runtime, log, dropped, reason),
  };
}

/**
 * Erases one session (runtime.erase) and, when it was folded from a mirrored key, that key too: its
 * entries hold the same content (`load` would still return it), and the key's other threads with them.
 * The key is dropped first, in one transaction, and the sessions erased after it, the named one first, so
 * a crash leaves the key whole or dropped, never a session erased while `load` still returns its content;
 * what a crash left unerased, `eraseLeftovers` finishes (as this function does, last). The result is the
 * named session's.
 */
export async function eraseWithMirror(
  runtime: Palimpsest,
  log: MirrorLogPort,
  sessionId: string,
  options: EraseOptions = {},
): Promise<ErasureResult> {
  const key = await log.keyOfSession(sessionId);
  const dropped = key === undefined ? [] : await log.drop(key);
  const result = await runtime.erase(sessionId, options);
  await eraseDropped(runtime, log, dropped, options.reason);
  await eraseLeftovers(runtime, log);
  return result;
}

/** Erases every session folded from the generations the keys a drop emptied had left; how many it erased. */
async function eraseDropped(
  runtime: Palimpsest,
  log: MirrorLogPort,
  dropped: readonly DroppedKey[],
  reason: string | undefined,
): Promise<number> {
  let sessions = 0;
  for (const k of dropped) sessions += await eraseSessions(runtime, await log.sessionsOf(k, k.generation + 1), reason);
  return sessions;
}

/**
 * Finishes deletes a crash cut short: deletes the entries (and encrypted, the data keys) of generations
 * their keys have left, and erases every session of such a generation that still has content.
 */
export async function eraseLeftovers(runtime: Palimpsest, log: MirrorLogPort): Promise<number> {
  await log.finishDrops();
  return eraseSessions(runtime, await log.unerasedSessions(), KEY_DELETED);
}

/** Erases each of the sessions that exists and holds content; how many it erased. */
export async function eraseSessions(
  runtime: Palimpsest,
  sessionIds: readonly string[],
  reason: string | undefined,
): Promise<number> {
  let erased = 0;
  for (const sessionId of sessionIds) {
    const summary = await runtime.store.getSession(sessionId);
    if (summary === undefined || summary.erasedAt !== undefined) continue;
    if ((await runtime.erase(sessionId, reason === undefined ? {} : { reason })).erased) erased++;
  }
  return erased;
}
