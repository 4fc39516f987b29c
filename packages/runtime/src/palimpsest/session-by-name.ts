import { AmbiguousName, type EventStore } from "@palimpsest/core";

/** What finding a session by id or name needs of the store. */
export type NamedSessionLookup = Pick<EventStore, "getSession"> & {
  sessionsNamed(name: string): Promise<string[]>;
};

/**
 * The session `nameOrId` names exactly: a session id names itself; otherwise the one session whose name
 * (its source's external id) it is. Undefined when none; AmbiguousName (VALIDATION) listing the ids
 * when several sessions have that name.
 */
export async function sessionByIdOrName(store: NamedSessionLookup, nameOrId: string): Promise<string | undefined> {
  if ((await store.getSession(nameOrId)) !== undefined) return nameOrId;
  const ids = await store.sessionsNamed(nameOrId);
  if (ids.length > 1) {
    const message = `session name ${nameOrId} is ambiguous: ${ids.length} sessions have it (${ids.join(", ")}); name one by its id`;
    throw new AmbiguousName("session", nameOrId, ids, message);
  }
  return ids[0];
}
