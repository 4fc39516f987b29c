import { createRequire } from "node:module";
import type { OpenedEventStore } from "@palimpsest/store";
import { databaseOf } from "./store-database.ts";

/** kysely's raw SQL, resolved from the store (kysely is a store dependency only). */
const { sql } = createRequire(new URL("../../packages/store/package.json", import.meta.url))("kysely") as {
  sql: { raw(text: string): { execute(db: unknown): Promise<{ rows: Record<string, unknown>[] }> } };
};

/** SQLite's FTS5 index: the tables its pages are kept in (a merge rewrites them, holding the same terms). */
const SEARCH_PAGES = ["message_search_data", "message_search_idx"];

/** The dump's entry listing what SQLite's FTS5 index holds, as fts5vocab reads it: each term at each place. */
export const SEARCH_TERMS_ENTRY = "message_search (terms)";

/** The part of kysely's query builder a scan uses, over any table name (kysely is a store dependency only). */
interface AnyTables {
  selectFrom(table: string): {
    selectAll(): { execute(): Promise<Record<string, unknown>[]> };
    select(column: string): { where(column: string, op: string, value: string): AnyWhere };
  };
}
interface AnyWhere {
  where(column: string, op: string, value: string): AnyWhere;
  execute(): Promise<Record<string, unknown>[]>;
}

/** Every row of every table of the store's database, as JSON text per row, by table name. */
export type DatabaseDump = Map<string, string[]>;

/**
 * Reads every table there is (SQLite: sqlite_master; PostgreSQL: information_schema, the public schema),
 * each row whole (`SELECT *`), so a table added later is scanned without anyone listing it. Blobs and
 * bytea columns are decoded as UTF-8; rows are sorted so two dumps compare regardless of scan order.
 */
export async function dumpDatabase(store: OpenedEventStore): Promise<DatabaseDump> {
  const db = databaseOf(store) as unknown as AnyTables;
  const names =
    store.engine === "sqlite"
      ? (await db.selectFrom("sqlite_master").select("name").where("type", "=", "table").execute()).map((r) =>
          String(r.name),
        )
      : (
          await db
            .selectFrom("information_schema.tables")
            .select("table_name")
            .where("table_schema", "=", "public")
            .where("table_type", "=", "BASE TABLE")
            .execute()
        ).map((r) => String(r.table_name));
  const dump: DatabaseDump = new Map();
  for (const name of names) {
    const rows = await db.selectFrom(name).selectAll().execute();
    dump.set(name, rows.map((row) => JSON.stringify(row, plain)).sort());
  }
  if (store.engine === "sqlite" && names.includes("message_search")) {
    // The index's content apart from how its pages lay it out (a temporary table of this connection).
    const vocab = "temp.dump_search_terms";
    await sql
      .raw(`CREATE VIRTUAL TABLE IF NOT EXISTS ${vocab} USING fts5vocab(main, message_search, 'instance')`)
      .execute(db);
    const { rows } = await sql.raw(`SELECT term, doc, col, offset FROM ${vocab}`).execute(db);
    dump.set(SEARCH_TERMS_ENTRY, rows.map((row) => JSON.stringify(row)).sort());
  }
  return dump;
}

/**
 * A dump without the pages of SQLite's FTS5 index, for comparing two dumps across a purge: its merge
 * writes them anew with the same terms, which the dump's SEARCH_TERMS_ENTRY lists and still compares.
 */
export function withoutSearchPages(dump: DatabaseDump): DatabaseDump {
  return new Map([...dump].filter(([table]) => !SEARCH_PAGES.includes(table)));
}

/** JSON of a row's values: buffers as their UTF-8 text, dates as ISO text, bigints as digits. */
function plain(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value !== null && typeof value === "object" && (value as { type?: unknown }).type === "Buffer") {
    return Buffer.from((value as { data: number[] }).data).toString("utf8");
  }
  return value;
}

/** Where `needle` occurs in a dump: `table: row` for each row holding it. */
export function occurrences(dump: DatabaseDump, needle: string): string[] {
  const found: string[] = [];
  for (const [table, rows] of dump) for (const row of rows) if (row.includes(needle)) found.push(`${table}: ${row}`);
  return found;
}

/** The rows of a dump that mention `needle` (a session id), by table: one session's footprint. */
export function rowsMentioning(dump: DatabaseDump, needle: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [table, rows] of dump)
    out.set(
      table,
      rows.filter((row) => row.includes(needle)),
    );
  return out;
}
