import type { MirrorKey } from "@palimpsest/core";
import { type Kysely, sql } from "kysely";
import type { StoreDatabase } from "../engine/database-schema.ts";
import { keyColumns } from "./mirror-append-plan.ts";
import type { MirrorTables } from "./mirror-tables.ts";

/** The store's tables and the mirror's, as the queries of this file read them. */
type MirrorDb = Kysely<StoreDatabase & MirrorTables>;

/**
 * Records (mirror_sessions) that `sessionId` holds a fold of the key's `generation`, only while the key is
 * at that generation (an erased key's next fold must not be recorded under the old one); a second record
 * of the same fold changes nothing.
 */
export async function recordFoldSession(
  db: MirrorDb,
  key: MirrorKey,
  generation: number,
  sessionId: string,
): Promise<void> {
  const current = db
    .selectFrom("mirror_keys")
    .select(sql<number>`1`.as("one"))
    .where((eb) => eb.and(keyColumns(key)))
    .where("generation", "=", generation);
  await db
    .insertInto("mirror_sessions")
    .columns(["project_key", "session_key", "subpath", "generation", "session_id"])
    .expression(
      db
        .selectNoFrom([
          sql<string>`cast(${key.project} as text)`.as("project_key"),
          sql<string>`cast(${key.session} as text)`.as("session_key"),
          sql<string>`cast(${key.subpath ?? ""} as text)`.as("subpath"),
          sql<number>`cast(${generation} as integer)`.as("generation"),
          sql<string>`cast(${sessionId} as text)`.as("session_id"),
        ])
        .where((eb) => eb.exists(current)),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The key whose current generation `sessionId` was folded from, if any. */
export async function keyOfFoldSession(db: MirrorDb, sessionId: string): Promise<MirrorKey | undefined> {
  const row = await db
    .selectFrom("mirror_sessions as m")
    .innerJoin("mirror_keys as k", (j) =>
      j
        .onRef("k.project_key", "=", "m.project_key")
        .onRef("k.session_key", "=", "m.session_key")
        .onRef("k.subpath", "=", "m.subpath")
        .onRef("k.generation", "=", "m.generation"),
    )
    .select(["m.project_key", "m.session_key", "m.subpath"])
    .where("m.session_id", "=", sessionId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    project: row.project_key,
    session: row.session_key,
    ...(row.subpath === "" ? {} : { subpath: row.subpath }),
  };
}

/**
 * The sessions folds of the key's `generation` started, in a stated order: the key's main thread first
 * (the one session of them without a parent), then the others (sidechains, subagents) in the order
 * their sessions were started, which is the order a fold first met their threads. A session recorded
 * but never started (a fold cut short before its first write) is left out: it holds nothing.
 */
export async function foldSessionsIn(db: MirrorDb, key: MirrorKey, generation: number): Promise<string[]> {
  const rows = await db
    .selectFrom("mirror_sessions as m")
    .innerJoin("events as e", (j) => j.onRef("e.session_id", "=", "m.session_id").on("e.seq", "=", 1))
    .select(["m.session_id", "e.data"])
    .where("m.project_key", "=", key.project)
    .where("m.session_key", "=", key.session)
    .where("m.subpath", "=", key.subpath ?? "")
    .where("m.generation", "=", generation)
    .orderBy("e.position")
    .execute();
  const isRoot = (data: string) => (JSON.parse(data) as { parent?: unknown }).parent === undefined;
  return [...rows.filter((r) => isRoot(r.data)), ...rows.filter((r) => !isRoot(r.data))].map((r) => r.session_id);
}

/** The sessions folds of the key's generations before `beforeGeneration` were written to. */
export async function foldSessionsBefore(db: MirrorDb, key: MirrorKey, beforeGeneration: number): Promise<string[]> {
  const rows = await db
    .selectFrom("mirror_sessions")
    .select("session_id")
    .where((eb) => eb.and(keyColumns(key)))
    .where("generation", "<", beforeGeneration)
    .execute();
  return rows.map((r) => r.session_id);
}
