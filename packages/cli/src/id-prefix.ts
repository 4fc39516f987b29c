import { type EventStore, NotFoundError, ValidationError } from "@palimpsest/core";

/** The full id of a session given by full id or by a unique prefix; NotFoundError or ValidationError otherwise. */
export async function sessionIdByPrefix(
  store: Pick<EventStore, "getSession" | "listSessions">,
  idOrPrefix: string,
): Promise<string> {
  if ((await store.getSession(idOrPrefix)) !== undefined) return idOrPrefix;
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
