import type { MirrorKey } from "@palimpsest/core";
import type { CompiledQuery, DatabaseConnection, Kysely, QueryExecutorProvider } from "kysely";
import type { StoreDatabase } from "../engine/database-schema.ts";
import { keyColumns, NEW_ROW } from "./mirror-append-plan.ts";
import type { MirrorDatabase, MirrorEntryInput, MirrorSummarize } from "./mirror-log.ts";
import { newKeyAppend, quickAppend } from "./mirror-quick-append.ts";
import type { MirrorTables } from "./mirror-tables.ts";

/**
 * The statement making `key`'s row at generation 0 (`INSERT … ON CONFLICT DO NOTHING RETURNING`): it
 * returns the row made, or none when another process made it first. A key's first append starts with it.
 */
export function insertKeyRow(db: Kysely<StoreDatabase & MirrorTables>, key: MirrorKey) {
  return db
    .insertInto("mirror_keys")
    .values({ ...keyColumns(key), ...NEW_ROW, folded_seq: 0, last_batch: null })
    .onConflict((oc) => oc.doNothing())
    .returning(["generation", "next_seq", "mtime_ms", "summary"]);
}

/** The key's row, as the quick path reads it. */
export function selectKeyRow(db: Kysely<StoreDatabase & MirrorTables>, key: MirrorKey) {
  return db
    .selectFrom("mirror_keys")
    .selectAll()
    .where((eb) => eb.and(keyColumns(key)));
}

/**
 * MirrorLog.rehearseFirstAppend: the statements of `key`'s first append, as the append builds them,
 * unsealed, recorded instead of run, then run by the store in a transaction rolled back: with `newKey`
 * (a store that does not encrypt), the new key's one guarded write (newKeyAppend), then a resumed key's
 * (its row read, the quick path on it); else its row read and made and the entries written on it by the
 * quick path.
 */
export async function rehearseFirstAppend(
  store: MirrorDatabase,
  key: MirrorKey,
  entries: readonly MirrorEntryInput[],
  summarize: MirrorSummarize | undefined,
  newKey: boolean,
): Promise<void> {
  const recorded: CompiledQuery[] = newKey
    ? []
    : [selectKeyRow(store.db, key).compile(), insertKeyRow(store.db, key).compile()];
  const target = {
    db: recording(store.db, recorded),
    dialect: store.dialect,
    tenant: store.tenant,
    writeGuarded: async (guard: CompiledQuery, statements: readonly CompiledQuery[]) => {
      recorded.push(guard, ...statements);
      return true;
    },
  };
  if (newKey) {
    const made = await newKeyAppend(target, key, entries, summarize);
    // Then a resumed key's first append (its row read, the quick path on it), its statements as a real one
    // makes them, but on a generation the key does not have: the guard matches no row, and the entries
    // collide with none inserted above.
    recorded.push(selectKeyRow(store.db, key).compile());
    const row = made.kind === "appended" ? made.row : NEW_ROW;
    await quickAppend(target, key, { ...row, generation: row.generation + 1 }, entries, summarize, undefined);
  } else await quickAppend(target, key, NEW_ROW, entries, summarize, undefined);
  await store.rehearse(recorded);
}

/** `db`'s compiler (its plugins: the tenant's scope) with a connection that records each query and runs none. */
function recording(db: Kysely<StoreDatabase & MirrorTables>, recorded: CompiledQuery[]): QueryExecutorProvider {
  const connection: DatabaseConnection = {
    async executeQuery(query) {
      recorded.push(query);
      return { rows: [] };
    },
    // biome-ignore lint/correctness/useYield: never streams
    async *streamQuery() {
      throw new Error("a rehearsal records no streamed query");
    },
  };
  const executor = db.getExecutor().withConnectionProvider({ provideConnection: (consume) => consume(connection) });
  return { getExecutor: () => executor };
}
