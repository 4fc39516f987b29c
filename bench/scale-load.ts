/**
 * The scale bench's data: sessions of 100 small events (a start, 98 short messages, one summary
 * compaction), bulk-loaded through the store's own append (one batch per session, several in flight on
 * PostgreSQL) with the snapshot the runtime saves after a compaction; and what the database holds per
 * table, read with the engine's own catalogue (PostgreSQL's size functions, SQLite's dbstat).
 */
import { createRequire } from "node:module";
import { type DomainEvent, foldEvents, initialState, type Message } from "@palimpsest/core";
import { saveSnapshot } from "@palimpsest/runtime";
import type { OpenedEventStore } from "@palimpsest/store";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { cycleMessage, STARTED } from "./workload.ts";

const Database = createRequire(new URL("../packages/store/package.json", import.meta.url))(
  "better-sqlite3",
) as typeof BetterSqlite3;

/** Events of every loaded session: its start, 98 messages and one compaction (it ends on a complete cycle). */
export const EVENTS_PER_SESSION = 100;
/** Messages the compaction of a loaded session supersedes (0 to 39, whole cycles). */
const SUPERSEDED = 40;
const WORDS = ["read", "file", "test", "patch", "error", "ok", "diff", "grep", "build", "run"];

/** Text of 60 to 250 characters, different for every index: a small agent message. */
function smallText(i: number): string {
  let text = `step ${i}:`;
  for (let w = 0; text.length < 60 + ((i * 37) % 190); w++) text += ` ${WORDS[(i + w) % WORDS.length]}_${w}`;
  return text;
}

/** The `i`-th message (id `prefix-i`) of a session: user, assistant calling a tool, its result, assistant. */
export function smallMessage(i: number, prefix: string): Message {
  return cycleMessage(i, prefix, smallText(i));
}

function appended(i: number, prefix: string): DomainEvent {
  const message = smallMessage(i, prefix);
  return { type: "message.appended", data: { message, tokens: Math.ceil(smallText(i).length / 4) } };
}

/**
 * A loaded session's whole log: messages 0 to 79, the summary of 0 to 39, messages 80 to 96 and 99 (an
 * assistant reply, so no tool call waits for its result). Its ids start with the session's id, so no two
 * sessions share one (the runtime's are UUIDs).
 */
function sessionEvents(sessionId: string): DomainEvent[] {
  const events: DomainEvent[] = [STARTED];
  for (let i = 0; i < 80; i++) events.push(appended(i, sessionId));
  const text = smallText(1_000).repeat(3);
  events.push({
    type: "messages.superseded",
    data: {
      compactionId: `${sessionId}-c`,
      targets: Array.from({ length: SUPERSEDED }, (_, k) => `${sessionId}-${k}`),
      replacements: [
        {
          kind: "summary",
          message: { id: `${sessionId}-s`, role: "user", content: [{ type: "text", text }] },
          tokens: 120,
        },
      ],
      mode: "summary",
      basis: { viewVersion: 0 },
      producer: { policy: "bench" },
      stats: { tokensBefore: 2_000, tokensAfter: 500 },
      trigger: "auto",
    },
  });
  for (let i = 80; i < 97; i++) events.push(appended(i, sessionId));
  events.push(appended(99, sessionId));
  return events;
}

/** Writes one session (one append, as one statement or transaction) and the snapshot of its state. */
export async function writeSession(store: OpenedEventStore, sessionId: string): Promise<void> {
  const result = await store.append(sessionId, sessionEvents(sessionId), {
    expectedVersion: "no-stream",
    viewVersion: { expected: 0 },
  });
  await saveSnapshot(store, foldEvents(initialState(sessionId), result.events), (error) => {
    throw error;
  });
}

/** Loads sessions `prefix-from` to `prefix-(to - 1)`, `parallel` appends in flight at a time. */
export async function loadSessions(
  store: OpenedEventStore,
  prefix: string,
  from: number,
  to: number,
  parallel: number,
): Promise<void> {
  let next = from;
  const worker = async () => {
    for (let s = next++; s < to; s = next++) await writeSession(store, `${prefix}-${String(s).padStart(7, "0")}`);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** Bytes one table holds: its rows (with PostgreSQL's TOAST), and its indexes. */
export interface TableBytes {
  table: string;
  rowBytes: number;
  indexBytes: number;
}

/** Direct access to the bench's database, beside the store: planner statistics, sizes and plans. */
export interface RawDatabase {
  /**
   * PostgreSQL: VACUUM (ANALYZE) every table, then CHECKPOINT: what autovacuum and the checkpointer do on a
   * real server (autovacuum is off on this machine's cluster, on in a fresh one), done before measuring so
   * that neither runs beside the measurements, and the visibility map is as autovacuum would leave it.
   */
  settle(): Promise<void>;
  /** Bytes per table (indexes counted with their table), largest first. */
  tableBytes(): Promise<TableBytes[]>;
  close(): Promise<void>;
}

async function postgresDatabase(url: string): Promise<RawDatabase> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    settle: async () => {
      await client.query("VACUUM (ANALYZE)");
      await client.query("CHECKPOINT");
    },
    tableBytes: async () => {
      const { rows } = await client.query<{ table: string; rows: string; indexes: string }>(
        // A partitioned table's partitions are counted under its name (see partitionLog).
        `SELECT coalesce(pg_partition_root(c.oid), c.oid)::regclass::text AS table,
                sum(pg_total_relation_size(c.oid) - pg_indexes_size(c.oid)) AS rows,
                sum(pg_indexes_size(c.oid)) AS indexes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE c.relkind = 'r' AND n.nspname = 'public'
         GROUP BY 1 ORDER BY sum(pg_total_relation_size(c.oid)) DESC`,
      );
      return rows.map((r) => ({ table: r.table, rowBytes: Number(r.rows), indexBytes: Number(r.indexes) }));
    },
    close: () => client.end(),
  };
}

function sqliteDatabase(path: string): RawDatabase {
  const db = new Database(path, { readonly: true });
  return {
    settle: async () => {},
    tableBytes: async () => {
      const rows = db
        .prepare(
          `SELECT m.tbl_name AS "table", m.type AS type, SUM(d.pgsize) AS bytes
           FROM dbstat d JOIN sqlite_master m ON m.name = d.name GROUP BY m.tbl_name, m.type`,
        )
        .all() as { table: string; type: string; bytes: number }[];
      const tables = new Map<string, TableBytes>();
      for (const r of rows) {
        const t = tables.get(r.table) ?? { table: r.table, rowBytes: 0, indexBytes: 0 };
        if (r.type === "index") t.indexBytes += r.bytes;
        else t.rowBytes += r.bytes;
        tables.set(r.table, t);
      }
      return [...tables.values()].sort((a, b) => b.rowBytes + b.indexBytes - (a.rowBytes + a.indexBytes));
    },
    close: async () => void db.close(),
  };
}

/** Opens the raw access for the store at `url`. */
export function openRawDatabase(engine: "postgres" | "sqlite", url: string): Promise<RawDatabase> {
  return engine === "postgres" ? postgresDatabase(url) : Promise.resolve(sqliteDatabase(url));
}
