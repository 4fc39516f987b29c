import assert from "node:assert";
import type { CompiledQuery, Kysely, Migration } from "kysely";
import type { StoreDatabase } from "./database-schema.ts";
import type { Dialect } from "./dialect.ts";

/** Columns holding session content or a hash of it, by table (what an erasure rewrites or deletes there). */
export type ContentColumns = Readonly<Record<string, readonly string[]>>;

/**
 * A feature keeping its own tables beside the log (the audit read models, the hand-off queue, the
 * pre-compaction candidates, the mirror): its migrations, in the one sequence of names every database
 * records (see mergeMigrations), and what an erasure must also write in its tables.
 */
export interface StoreFeature {
  readonly name: string;
  /** The feature's migration steps, by name, built for the engine's dialect. */
  migrations(dialect: Dialect): Record<string, Migration>;
  /**
   * The statements an erasure of `sessionId` runs in the feature's tables, inside the erasure's one
   * locked write (see erase-session.ts); `now` is the erasure's time (ISO text).
   */
  eraseStatements?(db: Kysely<StoreDatabase>, dialect: Dialect, sessionId: string, now: string): CompiledQuery[];
  /**
   * The feature's columns that hold session content or a hash of it, by table: the tables a purge of
   * erased content rewrites (the old row versions an erasure leaves are in their files), and the columns
   * PostgreSQL gathers no planner statistics on (ANALYZE would copy sampled values into its statistics catalog).
   */
  readonly contentColumns?: ContentColumns;
}

/**
 * The log's and every feature's migrations as one set, as kysely's Migrator takes it (it sorts by name).
 * A name two of them define is a defect of the code, not of input (an AssertionError): each step has one owner.
 */
export function mergeMigrations(sets: readonly Record<string, Migration>[]): Record<string, Migration> {
  const merged: Record<string, Migration> = {};
  for (const set of sets) {
    for (const [name, migration] of Object.entries(set)) {
      assert(!(name in merged), `migration ${name} is defined twice`);
      merged[name] = migration;
    }
  }
  return merged;
}
