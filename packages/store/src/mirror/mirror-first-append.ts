import type { MirrorKey } from "@palimpsest/core";
import type { Kysely } from "kysely";
import type { StoreDatabase } from "../engine/database-schema.ts";
import type { MirrorRowRead } from "./mirror-append-plan.ts";
import type { MirrorDatabase, MirrorEntryInput, MirrorSummarize } from "./mirror-log.ts";
import { quickAppend } from "./mirror-quick-append.ts";
import type { MirrorTables } from "./mirror-tables.ts";

/**
 * Makes `key`'s row at generation 0 (`INSERT … ON CONFLICT DO NOTHING RETURNING`): the row made, or
 * undefined when another process made it first. A key's first append starts with it.
 */
export function insertKeyRow(
  db: Kysely<StoreDatabase & MirrorTables>,
  key: MirrorKey,
): Promise<MirrorRowRead | undefined> {
  return db
    .insertInto("mirror_keys")
    .values({
      project_key: key.project,
      session_key: key.session,
      subpath: key.subpath ?? "",
      generation: 0,
      next_seq: 0,
      folded_seq: 0,
      mtime_ms: 0,
      summary: null,
      last_batch: null,
    })
    .onConflict((oc) => oc.doNothing())
    .returning(["generation", "next_seq", "mtime_ms", "summary"])
    .executeTakeFirst();
}

/** Thrown to roll the rehearsal's transaction back. */
class RolledBack extends Error {}

/**
 * MirrorLog.rehearseFirstAppend: the statements of `key`'s first append (its row read and made, the
 * entries written on it by the quick path, unsealed) in one transaction, then rolled back.
 */
export async function rehearseFirstAppend(
  store: MirrorDatabase,
  key: MirrorKey,
  entries: readonly MirrorEntryInput[],
  summarize: MirrorSummarize | undefined,
): Promise<void> {
  try {
    await store.db.transaction().execute(async (trx) => {
      // A lock another transaction holds (a conversion to partitions) fails the rehearsal rather than stalling it.
      await store.dialect.limitRehearsalLockWait(trx);
      const read = await trx
        .selectFrom("mirror_keys")
        .selectAll()
        .where((eb) => eb.and({ project_key: key.project, session_key: key.session, subpath: key.subpath ?? "" }))
        .executeTakeFirst();
      const row = read === undefined ? await insertKeyRow(trx, key) : undefined;
      if (row === undefined) throw new Error("the rehearsal's key has a row");
      await quickAppend({ ...store, db: trx }, key, row, entries, summarize, undefined);
      throw new RolledBack();
    });
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error;
  }
}
