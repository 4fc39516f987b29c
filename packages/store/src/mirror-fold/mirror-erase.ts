import type { EraseOptions, ErasureResult } from "@palimpsest/core";
import type { MirrorKey, MirrorLog } from "../mirror/mirror-log.ts";
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
 * Erases a mirrored key: a main key with every subpath of its session, a subpath alone. Under each key's
 * lock its entries are deleted and its next generation begins (so `load` finds nothing and a later
 * append starts afresh under new session ids); then every Palimpsest session folded from it is erased
 * to its skeleton (docs/erasure.md). A key never written changes nothing. Crash-safe: a delete cut short
 * leaves sessions that `eraseLeftovers` (run when a mirror opens) or the next delete finishes.
 */
export async function eraseMirrorKey(
  runtime: Palimpsest,
  log: MirrorLog,
  key: MirrorKey,
  reason?: string,
): Promise<MirrorErasure> {
  const all = await log.allKeysOf(key.project, key.session);
  const keys = key.subpath === undefined ? all : all.filter((k) => k.subpath === key.subpath);
  let dropped = 0;
  let sessions = 0;
  for (const k of keys) {
    let generation = k.generation;
    // A fold or append in another process may move the key between the read and the lock: read again.
    while (!(await log.dropGeneration(k, generation))) {
      const now = await log.key(k);
      if (now === undefined) break;
      generation = now.generation;
    }
    if (k.nextSeq > 0) dropped++;
    sessions += await eraseSessions(runtime, await log.sessionsOf(k, generation + 1), reason);
  }
  return { keys: dropped, sessions };
}

/**
 * Erases one session (runtime.erase) and, when it was folded from a mirrored key, that key too: its
 * entries hold the same content (`load` would still return it), and the key's other threads with them.
 * The result is the named session's.
 */
export async function eraseWithMirror(
  runtime: Palimpsest,
  log: MirrorLog,
  sessionId: string,
  options: EraseOptions = {},
): Promise<ErasureResult> {
  const result = await runtime.erase(sessionId, options);
  const key = await log.keyOfSession(sessionId);
  if (key !== undefined) await eraseMirrorKey(runtime, log, key, options.reason);
  return result;
}

/** Finishes deletes a crash cut short: erases every session of an erased generation that still has content. */
export async function eraseLeftovers(runtime: Palimpsest, log: MirrorLog): Promise<number> {
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
