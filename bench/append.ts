/**
 * Append throughput: OpenedEventStore.append with 1, 10 and 100 message.appended events per
 * transaction, against a raw multi-row INSERT of the same rows into a bare table with the same columns
 * and keys, on the same database, timed alternately in the same run.
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import type { DomainEvent } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { median, progress } from "./stats.ts";
import { messageEvents } from "./workload.ts";

/** better-sqlite3 is a dependency of @palimpsest/store, not of the root: resolve it from there. */
const Database = createRequire(new URL("../packages/store/package.json", import.meta.url))(
  "better-sqlite3",
) as typeof BetterSqlite3;

/** One engine and batch size: events per second through the store and through the raw insert. */
export interface AppendResult {
  engine: "postgres" | "sqlite";
  batch: number;
  eventsPerRep: number;
  reps: number;
  oursPerSec: number;
  rawPerSec: number;
  /** ours / raw: 1 means the store costs nothing over the bare insert. */
  ratio: number;
}

/** Where to run: the store's URL and, for SQLite, a second file for the bare table. */
export interface AppendTarget {
  engine: "postgres" | "sqlite";
  url: string;
  rawSqlitePath?: string;
}

/** Writes `events` (all of one session) starting at seq 1, `batch` rows per transaction. */
type RawWriter = (sessionId: string, events: readonly DomainEvent[], batch: number) => Promise<void>;

const COLUMNS = "event_id, session_id, seq, type, schema_version, occurred_at, content_hash, tenant_id, data";
const HASH = "0".repeat(64);

function rowValues(sessionId: string, seq: number, event: DomainEvent, occurredAt: string): unknown[] {
  return [randomUUID(), sessionId, seq, event.type, 1, occurredAt, HASH, "default", JSON.stringify(event.data)];
}

function insertSql(table: string, rows: number, placeholder: (n: number) => string): string {
  const tuples = Array.from(
    { length: rows },
    (_, r) => `(${Array.from({ length: 9 }, (_, c) => placeholder(r * 9 + c + 1)).join(", ")})`,
  );
  return `INSERT INTO ${table} (${COLUMNS}) VALUES ${tuples.join(", ")}`;
}

async function postgresRawWriter(url: string): Promise<{ write: RawWriter; close: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // The store's events table, copied with its identity, defaults, keys and indexes.
  await client.query("CREATE TABLE raw_events (LIKE events INCLUDING ALL)");
  const sqlFor = new Map<number, string>();
  const write: RawWriter = async (sessionId, events, batch) => {
    for (let k = 0; k < events.length; k += batch) {
      const chunk = events.slice(k, k + batch);
      const text = sqlFor.get(chunk.length) ?? insertSql("raw_events", chunk.length, (n) => `$${n}`);
      sqlFor.set(chunk.length, text);
      const at = new Date().toISOString();
      await client.query(
        text,
        chunk.flatMap((e, j) => rowValues(sessionId, k + j + 1, e, at)),
      );
    }
  };
  return { write, close: () => client.end() };
}

function sqliteRawWriter(path: string): { write: RawWriter; close: () => Promise<void> } {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec(`CREATE TABLE raw_events (
    position INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, session_id TEXT NOT NULL,
    seq INTEGER NOT NULL, type TEXT NOT NULL, schema_version INTEGER NOT NULL, occurred_at TEXT NOT NULL,
    causation_id TEXT, correlation_id TEXT, idempotency_key TEXT, content_hash TEXT NOT NULL,
    tenant_id TEXT NOT NULL, data TEXT NOT NULL,
    UNIQUE (session_id, event_id), UNIQUE (session_id, seq))`);
  const statements = new Map<number, BetterSqlite3.Statement>();
  const write: RawWriter = async (sessionId, events, batch) => {
    for (let k = 0; k < events.length; k += batch) {
      const chunk = events.slice(k, k + batch);
      const statement = statements.get(chunk.length) ?? db.prepare(insertSql("raw_events", chunk.length, () => "?"));
      statements.set(chunk.length, statement);
      const at = new Date().toISOString();
      statement.run(chunk.flatMap((e, j) => rowValues(sessionId, k + j + 1, e, at)));
    }
  };
  return { write, close: async () => void db.close() };
}

/** Runs every batch size on one engine; ours and raw alternate within each repetition. */
export async function runAppendBench(target: AppendTarget, quick: boolean): Promise<AppendResult[]> {
  const store = await openEventStore(target.url);
  const raw =
    target.engine === "postgres" ? await postgresRawWriter(target.url) : sqliteRawWriter(target.rawSqlitePath ?? "");
  const reps = quick ? 3 : 5;
  const sizes = quick ? { 1: 50, 10: 300, 100: 1000 } : { 1: 300, 10: 1500, 100: 6000 };
  const results: AppendResult[] = [];
  try {
    for (const [batchText, count] of Object.entries(sizes)) {
      const batch = Number(batchText);
      const events = messageEvents(0, count);
      const ours: number[] = [];
      const bare: number[] = [];
      for (let rep = -1; rep < reps; rep++) {
        const sessionId = `append-${batch}-${rep}-${randomUUID()}`;
        let start = performance.now();
        for (let k = 0; k < count; k += batch) {
          await store.append(sessionId, events.slice(k, k + batch), { expectedVersion: k === 0 ? "no-stream" : k });
        }
        const oursMs = performance.now() - start;
        start = performance.now();
        await raw.write(sessionId, events, batch);
        const rawMs = performance.now() - start;
        if (rep < 0) continue; // warmup
        ours.push((count / oursMs) * 1000);
        bare.push((count / rawMs) * 1000);
      }
      const oursPerSec = median(ours);
      const rawPerSec = median(bare);
      results.push({
        engine: target.engine,
        batch,
        eventsPerRep: count,
        reps,
        oursPerSec,
        rawPerSec,
        ratio: oursPerSec / rawPerSec,
      });
      progress(
        `append ${target.engine} batch ${batch}: ours ${oursPerSec.toFixed(0)}/s, raw ${rawPerSec.toFixed(0)}/s`,
      );
    }
  } finally {
    await raw.close();
    await store.close();
  }
  return results;
}
