import { type EventStore, NotFoundError, ValidationError } from "@palimpsest/core";
import { type NamedSessionLookup, sessionByIdOrName } from "@palimpsest/runtime";

/** What resolving a session needs of the store: the catalogue and the lookup by name. */
export type SessionLookup = NamedSessionLookup & Pick<EventStore, "listSessions">;

/**
 * The full id of a session given by full id, by name (its source's external id, as `sessions` prints it),
 * by a unique prefix of its id or by a unique prefix of its name, tried in that order: NotFoundError when
 * none matches, ValidationError listing the candidates when a name or a prefix names several sessions (for
 * a name prefix, one issue per candidate: `path` its id, `code` "ambiguous", `message` its name), saying
 * that the full id or the full name selects one.
 */
export async function sessionIdByPrefix(store: SessionLookup, idOrPrefix: string): Promise<string> {
  const exact = await sessionByIdOrName(store, idOrPrefix);
  if (exact !== undefined) return exact;
  const sessions = await store.listSessions();
  if (sessions.some((s) => s.sessionId.startsWith(idOrPrefix))) {
    return uniqueByPrefix(
      "session",
      idOrPrefix,
      sessions.map((s) => s.sessionId),
    );
  }
  const named = sessions.filter((s) => s.name?.startsWith(idOrPrefix) === true);
  const [only] = named;
  if (only === undefined) throw new NotFoundError("session", idOrPrefix);
  if (named.length > 1) {
    throw new ValidationError(
      `session name prefix ${idOrPrefix} is ambiguous: ${named.length} sessions' names begin with it; the full id or the full name of one selects it`,
      named.map((s) => ({ path: s.sessionId, code: "ambiguous", message: s.name ?? "" })),
    );
  }
  return only.sessionId;
}

/**
 * The one id among `ids` that is `idOrPrefix` or starts with it, as with session ids: NotFoundError
 * when none does, ValidationError listing the candidates when several do (and that the full id selects one).
 */
export function uniqueByPrefix(
  kind: "session" | "compaction" | "handoff",
  idOrPrefix: string,
  ids: readonly string[],
): string {
  if (ids.includes(idOrPrefix)) return idOrPrefix;
  const matches = [...new Set(ids.filter((id) => id.startsWith(idOrPrefix)))];
  if (matches.length === 0) throw new NotFoundError(kind, idOrPrefix);
  if (matches.length > 1) {
    const select =
      kind === "session" ? "the full id or the full name of one selects it" : "the full id of one selects it";
    throw new ValidationError(
      `${kind} prefix ${idOrPrefix} is ambiguous: ${matches.length} ${kind}s' ids begin with it; ${select}`,
      matches,
    );
  }
  return matches[0] as string;
}
