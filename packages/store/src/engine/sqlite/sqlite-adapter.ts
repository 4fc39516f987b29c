import type BetterSqlite3 from "better-sqlite3";
import { type CompiledQuery, Kysely } from "kysely";
import { LRUCache } from "lru-cache";
import type { PreparedBatch } from "../append-batch.ts";
import { claimVersionSql, INSERT_COLUMNS, SqlParams } from "../append-sql.ts";
import type { StoreDatabase } from "../database-schema.ts";
import type { EngineAdapter, WrittenBatch } from "../engine-adapter.ts";
import { retryWhileBusy } from "./sqlite-busy.ts";
import { sqliteChangeSource } from "./sqlite-changes.ts";
import { sqliteDialect } from "./sqlite-dialect.ts";
import { readSqliteGlobalLog, sqliteGlobalHead, sqliteVisibilityWait } from "./sqlite-global-log.ts";
import { sqliteErasureWrite, sqliteGuardedWrite, sqliteLockedWrite } from "./sqlite-guarded-write.ts";
import { LockWaitingSqliteDialect } from "./sqlite-kysely-dialect.ts";
import { sqlitePurge } from "./sqlite-purge.ts";
import { FOLD_PENDING_TERMS, INSERT_PENDING_TERMS, reachesFold, sqliteIndexedText } from "./sqlite-search.ts";

/** Rows per INSERT statement, well under SQLite's bound-parameter limit (13 parameters a row). */
const ROWS_PER_INSERT = 500;

/**
 * Prepared statements kept per database (one per batch shape and size in use, the features' writes too),
 * and the SQL text they may hold in all (a statement's memory grows with its text: a 500-row INSERT is
 * about 400 KB prepared); the least recently used go first.
 */
const MAX_CACHED_STATEMENTS = 128;
const MAX_CACHED_SQL_CHARS = 1_000_000;

/** One row's placeholders in the events insert. */
const ROW_PLACEHOLDERS = `(${Array.from({ length: 13 }, () => "?").join(", ")})`;

/** Thrown inside the write transaction to roll it back when the batch cannot apply. */
class Rejected extends Error {}

/** Thrown at the end of a rehearsal's transaction to roll it back. */
class RolledBack extends Error {}

/** How the SQLite adapter polls for other processes' commits and waits for their locks. */
export interface SqliteAdapterOptions {
  /** How often (ms) a store with listeners checks the file for other connections' commits. */
  pollMs: number;
  /** How long (ms) an operation waits for a lock another process holds before failing. */
  busyTimeoutMs: number;
  /** The tenant of the store (its change feed hears that tenant's commits only). */
  tenant: string;
}

/**
 * The SQLite adapter. An append is one `BEGIN IMMEDIATE` transaction, taking the write lock up front,
 * run synchronously from begin to commit: no other connection of this process can interleave and wait on
 * a lock this thread holds. While another process holds the lock, the whole transaction is tried again on
 * a timer (retryWhileBusy), up to `busyTimeoutMs`; so is every kysely statement (LockWaitingSqliteDialect).
 * With one writer at a time, commit order is position order, so global readers need no barrier; for the
 * same reason the rows of one INSERT get consecutive positions (AUTOINCREMENT: each new row is one above
 * the largest ever). Other connections' commits (other processes on the same file) are heard by polling.
 */
export function sqliteAdapter(database: BetterSqlite3.Database, options: SqliteAdapterOptions): EngineAdapter {
  const db = new Kysely<StoreDatabase>({ dialect: new LockWaitingSqliteDialect(database, options.busyTimeoutMs) });
  const statements = new LRUCache<string, BetterSqlite3.Statement>({
    max: MAX_CACHED_STATEMENTS,
    maxSize: MAX_CACHED_SQL_CHARS,
    sizeCalculation: (statement) => Math.max(1, statement.source.length),
  });
  /** The cached statement for `key` (its SQL text, or a shorter name for a long generated one). */
  const prepare = (key: string, sql: () => string = () => key): BetterSqlite3.Statement => {
    let statement = statements.get(key);
    if (statement === undefined) {
      statement = database.prepare(sql());
      statements.set(key, statement);
    }
    return statement;
  };
  const insertSql = (rows: number) =>
    `INSERT INTO events (${INSERT_COLUMNS}) VALUES ${Array.from({ length: rows }, () => ROW_PLACEHOLDERS).join(", ")}`;
  /** Moves the pending terms into the FTS5 index (sqlite-search.ts), in the transaction of the append that reaches a fold. */
  const foldPendingTerms = () => {
    for (const statement of FOLD_PENDING_TERMS) prepare(statement).run();
  };
  /** The batch's statements, in the caller's transaction; Rejected when it cannot apply. */
  const writeRows = (batch: PreparedBatch): WrittenBatch => {
    const params = new SqlParams(sqliteDialect);
    const claim = claimVersionSql(batch, params);
    const claimed =
      claim === undefined ? undefined : (prepare(claim).get(params.values) as { version: number } | undefined);
    if (claimed === undefined) throw new Rejected();
    const version = claimed.version;
    const count = batch.events.length;
    const firstSeq = version - count + 1;
    if (batch.idempotencyKey !== null) {
      const key = prepare(
        "INSERT INTO idempotency_keys (session_id, tenant_id, idempotency_key, content_hash, first_seq, last_seq) " +
          "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
      ).run(batch.sessionId, batch.tenantId, batch.idempotencyKey, batch.contentHash, firstSeq, version);
      if (key.changes === 0) throw new Rejected();
    }
    const positions: number[] = [];
    for (let start = 0; start < count; start += ROWS_PER_INSERT) {
      const rows = Math.min(ROWS_PER_INSERT, count - start);
      const values: unknown[] = [];
      for (let i = start; i < start + rows; i++) {
        const e = batch.events[i] as PreparedBatch["events"][number];
        values.push(
          e.eventId,
          batch.sessionId,
          firstSeq + i,
          e.event.type,
          e.schemaVersion,
          e.occurredAt,
          batch.causationId,
          batch.correlationId,
          batch.idempotencyKey,
          e.contentHash,
          batch.tenantId,
          e.data,
          batch.recordedAt,
        );
      }
      const last = Number(prepare(`insert events ${rows}`, () => insertSql(rows)).run(values).lastInsertRowid);
      for (let r = rows - 1; r >= 0; r--) positions.push(last - r);
    }
    const indexed = sqliteIndexedText(batch.sessionId);
    for (const [i, e] of batch.events.entries()) {
      if (e.terms !== null) prepare(INSERT_PENDING_TERMS).run(positions[i], indexed(e.terms));
    }
    if (reachesFold(positions)) foldPendingTerms();
    if (batch.keys.length > 0) {
      prepare(
        "INSERT INTO log_keys (session_id, tenant_id, key) SELECT ?, ?, value FROM json_each(?) WHERE true " +
          "ON CONFLICT DO NOTHING",
      ).run(batch.sessionId, batch.tenantId, JSON.stringify(batch.keys));
    }
    return { version, positions };
  };
  const write = database.transaction(writeRows);
  /** The batches' and the statements' writes in one transaction, then thrown out (RolledBack): see EngineAdapter.rehearse. */
  const rehearsal = database.transaction((batches: readonly PreparedBatch[], statements: readonly CompiledQuery[]) => {
    for (const batch of batches) writeRows(batch);
    for (const { sql, parameters } of statements) {
      const statement = prepare(sql);
      if (statement.reader) statement.all(parameters);
      else statement.run(parameters);
    }
    throw new RolledBack();
  });
  return {
    dialect: sqliteDialect,
    db,
    readGlobalLog: readSqliteGlobalLog,
    awaitVisible: sqliteVisibilityWait,
    globalHead: sqliteGlobalHead,
    listen: sqliteChangeSource(database, options.pollMs, options.tenant),
    writeGuarded: sqliteGuardedWrite(database, prepare, options.busyTimeoutMs),
    writeLocked: sqliteLockedWrite(database, prepare, options.busyTimeoutMs),
    writeErasure: sqliteErasureWrite(database, prepare, options.busyTimeoutMs),
    purgeFiles: sqlitePurge(database),

    async writeBatch(batch) {
      try {
        return await retryWhileBusy(database, options.busyTimeoutMs, "append", () => write.immediate(batch));
      } catch (error) {
        if (error instanceof Rejected) return undefined;
        throw error;
      }
    },

    async rehearse(batches, statements = []) {
      // Never waits for another process's lock: a busy file is an error the caller ignores.
      try {
        rehearsal.immediate(batches, statements);
      } catch (error) {
        if (!(error instanceof RolledBack)) throw error;
      }
    },
  };
}
