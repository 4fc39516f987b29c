import type {
  CompiledQuery,
  CreateTableBuilder,
  Kysely,
  QueryExecutorProvider,
  RawBuilder,
  SelectQueryBuilder,
} from "kysely";
import type { GuardedWrite } from "./guarded-write.ts";
import type { EventRow } from "./row-mapping.ts";

/** The database engines the store runs on (each has a folder beside this file). */
export type Engine = "postgres" | "sqlite";

/** A column's type as kysely's schema builder takes it. */
export type SqlType = Parameters<CreateTableBuilder<string, never>["addColumn"]>[1];

/** Rows insertUnderGuard inserts: the table, its columns with their PostgreSQL types, and the rows' values in that order. */
export interface GuardedInsert {
  readonly table: string;
  readonly columns: readonly { readonly name: string; readonly pgType: string }[];
  readonly rows: readonly (readonly unknown[])[];
}

/** A builder of the events table of migration 0001, given its shared columns. */
export type EventsTableBuilder = CreateTableBuilder<"events", string>;

/**
 * Everything in the SQL of the log and the features that differs between engines: column types, the
 * events table's engine-only columns and indexes, placeholders, row locks, the database clock, dates and
 * JSON. Features write their queries once against it; each engine folder (postgres/, sqlite/) has one.
 */
export interface Dialect {
  readonly engine: Engine;
  /** Column types: times (ISO text or timestamptz), epoch milliseconds, floats, verbatim JSON text, uuids, bytes. */
  readonly types: {
    readonly timestamp: SqlType;
    readonly epochMs: SqlType;
    readonly real: SqlType;
    readonly json: SqlType;
    readonly uuid: SqlType;
    /** Bytes (bytea, blob): also what a parameter is cast to where its type cannot be inferred. */
    readonly bytes: RawBuilder<unknown>;
  };
  /**
   * Migration 0001's events table: the engine's `position` column first, then `columns` (the shared ones
   * and their constraints), then the engine's key (and on PostgreSQL `transaction_id` and the position index).
   */
  createEventsTable(db: Kysely<unknown>, columns: (table: EventsTableBuilder) => EventsTableBuilder): Promise<void>;
  /**
   * A table whose rows are their primary key alone, stored as that key (SQLite: `WITHOUT ROWID`, one
   * B-tree instead of a table and its key's index; PostgreSQL has no such table kind: unchanged).
   */
  keyOnly<T extends string>(table: CreateTableBuilder<T, string>): CreateTableBuilder<T, string>;
  /** Migration 0006: the index global readers page by, where the engine needs one. */
  createGlobalOrderIndex(db: Kysely<unknown>): Promise<void>;
  /** The placeholder of the `index`th (1-based) parameter of hand-written SQL, typed `pgType` where the engine needs it. */
  placeholder(index: number, pgType: string): string;
  /**
   * Hand-written SQL's test that the log of the `sessions` row in scope holds none of `keys` (`add` binds
   * them as one parameter and returns its placeholder). PostgreSQL probes the log's key for each key on
   * its own (a LATERAL subquery): `key = ANY(…)` beside the session's columns let a planner without
   * statistics (a table never analyzed) scan every key of the session, 2.6 ms at 4,700 keys. SQLite
   * `key IN (SELECT value FROM json_each(?))`.
   */
  holdsNoKey(keys: readonly string[], add: (value: unknown, pgType: string) => string): string;
  /**
   * The keys among `keys` that the log of `tenant`'s session `sessionId` holds, each probed on its own on
   * PostgreSQL (see holdsNoKey).
   */
  knownLogKeys(
    db: QueryExecutorProvider,
    tenant: string,
    sessionId: string,
    keys: readonly string[],
  ): Promise<string[]>;
  /** A SELECT that locks the rows it reads until the transaction ends (the first read of a LockedWrite). */
  lockRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /**
   * A SELECT that holds the rows it reads against an erasure until the statement's transaction ends: the
   * erasure's first read (lockRows) waits for it, and it for the erasure, which it then sees; an append's
   * update of the row does not wait (PostgreSQL `FOR KEY SHARE`; SQLite writes one at a time: as it is).
   * For content saved beside the log (a snapshot, a candidate, a hand-off request) on a session's row.
   */
  shareRows<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** A queue claim's row choice: locked, skipping rows other claimers hold, where the engine can. */
  claimSkipLocked<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** The database clock in epoch milliseconds. */
  nowMs(): RawBuilder<number>;
  /** The UTC day (YYYY-MM-DD) of a timestamp column. */
  utcDay(column: string): RawBuilder<string>;
  /** Text (a parameter or column) as a value of the events' `data` column type. */
  jsonFromText(text: RawBuilder<unknown>): RawBuilder<string>;
  /**
   * A bytes column as a query reads it fastest (decode it with bytesRead): PostgreSQL as base64 text
   * (bytea's text form is hex, twice the size and slower to parse), SQLite as the blob.
   */
  bytesForRead(column: string): RawBuilder<string | Uint8Array | null>;
  /** The text at `path` in a JSON column, null when absent. */
  jsonPath(column: string, path: readonly string[]): RawBuilder<string | null>;
  /** Where `text` first occurs in a JSON or text column's text (1-based), 0 when it does not. */
  textPosition(column: string, text: string): RawBuilder<number>;
  /**
   * Keeps the planner's statistics off `columns` of `table` (migration 0015, for columns holding content):
   * PostgreSQL's ANALYZE copies sampled values into its statistics catalog, where an erasure never reaches, so their
   * statistics target becomes 0 and what was gathered is dropped; SQLite's ANALYZE samples only indexed
   * columns, and no content column is indexed.
   */
  withoutStatistics(db: Kysely<unknown>, table: string, columns: readonly string[]): Promise<void>;
  /**
   * Migration 0016 for one table: its keys and indexes take the tenant column (see withTenantColumn), its
   * rows go to the `default` tenant, and on PostgreSQL row-level security confines a connection to the
   * rows of its tenant (see postgres-tenant-keys.ts); SQLite rebuilds the table to change its keys.
   */
  keyByTenant(db: Kysely<unknown>, table: string): Promise<void>;
  /** Statements an erasure runs last, inside its locked write (PostgreSQL wakes other processes). */
  afterEraseStatements<DB>(db: Kysely<DB>, tenant: string, sessionId: string, seq: number): CompiledQuery[];
  /**
   * Migration 0018: the index of messages' terms (core's indexedTerms) that searchRows reads: PostgreSQL a
   * `search` tsvector column of events (no statistics: its lexemes are content) with a GIN index, SQLite an
   * FTS5 table keyed by the events' positions that keeps no copy of the text. `fill` adds the messages
   * already stored (indexTerms), before PostgreSQL builds its GIN index (once, not row by row).
   */
  createSearchIndex(db: Kysely<unknown>, fill: () => Promise<void>): Promise<void>;
  /** Adds events already stored to the search index (the migration's backfill). */
  indexTerms(db: Kysely<unknown>, rows: readonly IndexedEvent[]): Promise<void>;
  /**
   * Migration 0019: where appends leave their messages' terms until they are folded into the index (SQLite:
   * FTS5 pays a segment write per commit, so appends write plain rows and every SEARCH_FOLD_POSITIONS
   * positions one append folds them; a search scans what is pending beside the index). PostgreSQL writes each event's vector
   * in its row and needs none.
   */
  createSearchPending(db: Kysely<unknown>): Promise<void>;
  /**
   * Runs `guard` (an UPDATE: a compare-and-set) and, only when it changed a row, inserts `insert`'s rows,
   * atomically; whether it wrote (false: nothing was). PostgreSQL: one statement (a data-modifying CTE: one
   * round trip); SQLite: `writeGuarded`'s transaction. A unique violation of the insert undoes the guard
   * too, and is thrown as the driver's error.
   */
  insertUnderGuard(
    db: QueryExecutorProvider,
    writeGuarded: GuardedWrite,
    guard: RawBuilder<unknown>,
    insert: GuardedInsert,
  ): Promise<boolean>;
  /**
   * Migration 0022: SQLite's FTS5 index made again so that an erasure's delete takes the terms out of its
   * pages (the table 0018 made only marked deleted rows); PostgreSQL has nothing to do.
   */
  remakeSearchIndex(db: Kysely<unknown>, fill: () => Promise<void>): Promise<void>;
  /**
   * The statements an erasure runs to take the session's messages out of the search index (and its
   * pending terms); `rows` are the session's events as stored, read under the erasure's lock.
   */
  forgetSearch<DB>(db: Kysely<DB>, tenant: string, sessionId: string, rows: readonly TermsRow[]): CompiledQuery[];
  /**
   * The events of `tenant`'s `sessionIds` indexed under any of `terms` (each a run of letters and digits),
   * with their `rank` (higher is better), best first, then newest first.
   */
  searchRows(search: SearchRowsQuery): RawBuilder<EventRow & { rank: number }>;
}

/** The columns of an events row that say what the search index keeps for it (row-terms.ts). */
export interface TermsRow {
  readonly position: number | string | bigint;
  readonly session_id: string;
  readonly type: string;
  readonly data: unknown;
}

/** An event with the terms the search index keeps for it (indexedTerms). */
export interface IndexedEvent {
  readonly sessionId: string;
  readonly position: number;
  readonly terms: string;
}

/** What Dialect.searchRows reads. */
export interface SearchRowsQuery {
  readonly tenant: string;
  readonly sessionIds: readonly string[];
  readonly terms: readonly string[];
  readonly limit: number;
  readonly offset: number;
}
