/**
 * better-sqlite3 for tests that read a SQLite file beside the store: it is a dependency of
 * @palimpsest/store, not of the root, so it is resolved from there.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

/** The better-sqlite3 Database class @palimpsest/store opens its files with. */
export const Database = createRequire(new URL("../../packages/store/package.json", import.meta.url))(
  "better-sqlite3",
) as typeof BetterSqlite3;
