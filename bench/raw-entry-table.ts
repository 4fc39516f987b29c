/**
 * The baseline of the SessionStore bench: the Claude Agent SDK's reference PostgreSQL adapter's shape,
 * one row per entry in a bare table (project_key, session_id, subpath, seq, entry as JSONB on PostgreSQL
 * or JSON text on SQLite, uuid, created_at) with a unique index on (project_key, session_id, subpath,
 * uuid); an append is one multi-row INSERT … ON CONFLICT DO NOTHING, a load one SELECT … ORDER BY seq.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { ClaudeEntry } from "./claude-entries.ts";

/** better-sqlite3 is a dependency of @palimpsest/store, not of the root: resolve it from there. */
const Database = createRequire(new URL("../packages/store/package.json", import.meta.url))(
  "better-sqlite3",
) as typeof BetterSqlite3;

/** A key as the SDK names it. */
export interface RawKey {
  projectKey: string;
  sessionId: string;
  subpath?: string;
}

/** The bare table: append a batch, load a key's entries in order. */
export interface RawEntryTable {
  append(key: RawKey, entries: readonly ClaudeEntry[]): Promise<void>;
  load(key: RawKey): Promise<ClaudeEntry[]>;
  close(): Promise<void>;
}

const KEY_COLUMNS = "project_key, session_id, subpath";

function insertSql(rows: number, placeholder: (n: number) => string, entryCast: string): string {
  const tuples = Array.from(
    { length: rows },
    (_, r) => `(${Array.from({ length: 5 }, (_, c) => placeholder(r * 5 + c + 1)).join(", ")}${entryCast})`,
  );
  return `INSERT INTO raw_entries (${KEY_COLUMNS}, uuid, entry) VALUES ${tuples.join(", ")}
    ON CONFLICT (${KEY_COLUMNS}, uuid) DO NOTHING`;
}

function parameters(key: RawKey, entries: readonly ClaudeEntry[]): unknown[] {
  const subpath = key.subpath ?? "";
  return entries.flatMap((e) => [key.projectKey, key.sessionId, subpath, e.uuid ?? null, JSON.stringify(e)]);
}

/** The bare table in the PostgreSQL database at `url`, written through a pool of pg's default size (10). */
export async function postgresRawTable(url: string): Promise<RawEntryTable> {
  const pool = new pg.Pool({ connectionString: url });
  await pool.query(`CREATE TABLE raw_entries (
    project_key text NOT NULL, session_id text NOT NULL, subpath text NOT NULL DEFAULT '',
    seq bigserial PRIMARY KEY, entry jsonb NOT NULL, uuid text, created_at timestamptz NOT NULL DEFAULT now())`);
  await pool.query(`CREATE UNIQUE INDEX raw_entries_uuid ON raw_entries (${KEY_COLUMNS}, uuid)`);
  const sqlFor = new Map<number, string>();
  return {
    async append(key, entries) {
      const text = sqlFor.get(entries.length) ?? insertSql(entries.length, (n) => `$${n}`, "::jsonb");
      sqlFor.set(entries.length, text);
      await pool.query(text, parameters(key, entries));
    },
    async load(key) {
      const { rows } = await pool.query<{ entry: ClaudeEntry }>(
        `SELECT entry FROM raw_entries WHERE project_key = $1 AND session_id = $2 AND subpath = $3 ORDER BY seq`,
        [key.projectKey, key.sessionId, key.subpath ?? ""],
      );
      return rows.map((r) => r.entry);
    },
    close: () => pool.end(),
  };
}

/** The bare table in a SQLite file of its own, opened as the store opens its file (WAL, synchronous FULL). */
export function sqliteRawTable(path: string): RawEntryTable {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec(`CREATE TABLE raw_entries (
    project_key TEXT NOT NULL, session_id TEXT NOT NULL, subpath TEXT NOT NULL DEFAULT '',
    seq INTEGER PRIMARY KEY, entry TEXT NOT NULL, uuid TEXT, created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);
    CREATE UNIQUE INDEX raw_entries_uuid ON raw_entries (${KEY_COLUMNS}, uuid)`);
  const statements = new Map<number, BetterSqlite3.Statement>();
  const select = db.prepare(
    "SELECT entry FROM raw_entries WHERE project_key = ? AND session_id = ? AND subpath = ? ORDER BY seq",
  );
  return {
    async append(key, entries) {
      const statement = statements.get(entries.length) ?? db.prepare(insertSql(entries.length, () => "?", ""));
      statements.set(entries.length, statement);
      statement.run(parameters(key, entries));
    },
    async load(key) {
      const rows = select.all(key.projectKey, key.sessionId, key.subpath ?? "") as { entry: string }[];
      return rows.map((r) => JSON.parse(r.entry) as ClaudeEntry);
    },
    close: async () => void db.close(),
  };
}
