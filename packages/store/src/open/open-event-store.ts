import { checkOptions } from "@palimpsest/core";
import { ContentCipher } from "../encryption/content-cipher.ts";
import { keyringOption } from "../encryption/keyring.ts";
import type { EngineAdapter } from "../engine/engine-adapter.ts";
import { type EngineOpener, EVENT_STORE_OPTION_SHAPE, type OpenEventStoreOptions } from "../engine/engine-opener.ts";
import { openerFor } from "../engine/engines.ts";
import { migrateToLatest } from "../engine/migrate.ts";
import { guardStorage } from "../engine/storage-guard.ts";
import { tenantOption } from "../engine/tenant.ts";
import { type OpenedEventStore, SqlEventStore } from "./opened-event-store.ts";
import { storeMigrations } from "./store-features.ts";

/** Where `palimpsest` keeps its log when no database URL is given. */
export const DEFAULT_DATABASE_PATH = "./.palimpsest/palimpsest.db";

/**
 * Opens (and migrates: the log's and every feature's steps) the store at `url`: PostgreSQL, in-memory
 * SQLite, or a SQLite file path or `file:` URL (see engines.ts; an unknown scheme is VALIDATION, as an option it does not take is);
 * default DEFAULT_DATABASE_PATH. A damaged SQLite file is a StorageError naming it. The store serves one
 * tenant (`options.tenant`, default DEFAULT_TENANT); open one per tenant. With `options.keyring` it
 * encrypts content (see OpenEventStoreOptions.keyring).
 */
export async function openEventStore(
  url: string = DEFAULT_DATABASE_PATH,
  options: OpenEventStoreOptions = {},
): Promise<OpenedEventStore> {
  checkOptions("openEventStore", options, EVENT_STORE_OPTION_SHAPE);
  const opener = openerFor(url);
  const tenant = tenantOption(options.tenant);
  const cipher = options.keyring === undefined ? undefined : new ContentCipher(keyringOption(options.keyring), tenant);
  const search = options.search ?? true;
  return new SqlEventStore(await openMigrated(opener, url, options, tenant), tenant, cipher, search);
}

/**
 * The adapter of `tenant` on `url`, its database brought up to date (the log's and every feature's
 * steps); errors reworded by `opener`, and the connection closed again when the migration fails.
 */
export async function openMigrated(
  opener: EngineOpener,
  url: string,
  options: OpenEventStoreOptions,
  tenant: string,
): Promise<EngineAdapter> {
  const adapter = await guardStorage("open", () => opener.open(url, options, tenant)).catch((error: unknown) => {
    throw opener.explain(error, url);
  });
  try {
    await guardStorage("migrate", () => migrateToLatest(adapter.db, storeMigrations(adapter.dialect)));
  } catch (error) {
    await adapter.db.destroy().catch(() => {}); // the migration's error is the one to report
    throw opener.explain(error, url);
  }
  return adapter;
}
