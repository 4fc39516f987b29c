import { type EventStore, NotFoundError, ValidationError } from "@palimpsest/core";
import { type NamedSessionLookup, sessionByIdOrName } from "@palimpsest/store";

/** What resolving a session needs of the store: the catalogue and the lookup by name. */
export type SessionLookup = NamedSessionLookup & Pick<EventStore, "listSessions">;

/**
 * The full id of a session given by full id, by name (its source's external id, as `sessions` prints it)
 * or by a unique prefix of its id, tried in that order: NotFoundError when none matches, ValidationError
 * listing the candidates when a name or a prefix names several sessions.
 */
export async function sessionIdByPrefix(store: SessionLookup, idOrPrefix: string): Promise<string> {
  const exact = await sessionByIdOrName(store, idOrPrefix);
  if (exact !== undefined) return exact;
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
