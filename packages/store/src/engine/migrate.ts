import type { Kysely } from "kysely";
import { type Migration, Migrator } from "kysely";
import type { StoreDatabase } from "./database-schema.ts";

/**
 * Brings the database to the latest schema; throws the migrator's error when a step fails. Stores opening
 * a fresh database at once take turns: kysely's Migrator reads what is applied and applies the rest under
 * a lock, on PostgreSQL an advisory lock, on SQLite the write lock of one `BEGIN IMMEDIATE` transaction
 * (see LockWaitingSqliteDialect); the next store then finds every step applied. A database already at the
 * latest schema is only read, so opening it never waits for another process's writes.
 */
export async function migrateToLatest(db: Kysely<StoreDatabase>, migrations: Record<string, Migration>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  if ((await migrator.getMigrations()).every((m) => m.executedAt !== undefined)) return;
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error;
}
