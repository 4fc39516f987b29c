import { type EventStore, NotFoundError, ValidationError } from "@palimpsest/core";

/** What resolving a session needs of the store: the catalogue and the lookup by name. */
export type SessionLookup = Pick<EventStore, "getSession" | "listSessions"> & {
  sessionsNamed(name: string): Promise<string[]>;
};

/**
 * The full id of a session given by full id, by name (its source's external id, as `sessions` prints it)
 * or by a unique prefix of its id, tried in that order: NotFoundError when none matches, ValidationError
 * listing the candidates when a name or a prefix names several sessions.
 */
export async function sessionIdByPrefix(store: SessionLookup, idOrPrefix: string): Promise<string> {
  if ((await store.getSession(idOrPrefix)) !== undefined) return idOrPrefix;
  const named = await store.sessionsNamed(idOrPrefix);
  if (named.length > 1) throw new ValidationError(`session name ${idOrPrefix} is ambiguous`, named);
  if (named[0] !== undefined) return named[0];
  return uniqueByPrefix(
    "session",
    idOrPrefix,
    (await store.listSessions()).map((s) => s.sessionId),
  );
}

/**
 * The one id among `ids` that is `idOrPrefix` or starts with it, as with session ids: NotFoundError
 * when none does, ValidationError listing the candidates when several do.
 */
export function uniqueByPrefix(
  kind: "session" | "compaction" | "handoff",
  idOrPrefix: string,
  ids: readonly string[],
): string {
  if (ids.includes(idOrPrefix)) return idOrPrefix;
  const matches = [...new Set(ids.filter((id) => id.startsWith(idOrPrefix)))];
  if (matches.length === 0) throw new NotFoundError(kind, idOrPrefix);
  if (matches.length > 1) throw new ValidationError(`${kind} prefix ${idOrPrefix} is ambiguous`, matches);
  return matches[0] as string;
}
