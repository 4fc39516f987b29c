import type BetterSqlite3 from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
} from "kysely";
import { retryWhileBusy } from "./sqlite-busy.ts";

/**
 * kysely's SQLite dialect with waits for other processes' locks that keep the event loop turning: every
 * statement run outside a transaction that finds the file busy is run again later (retryWhileBusy), and a
 * transaction starts with `BEGIN IMMEDIATE`, retried the same way, so it holds the write lock from its first
 * statement and none inside it can find the file busy. The adapter says DDL is transactional (SQLite's is),
 * so kysely's Migrator reads what is applied and applies the rest inside one such transaction.
 */
export class LockWaitingSqliteDialect extends SqliteDialect {
  readonly #database: BetterSqlite3.Database;
  readonly #busyTimeoutMs: number;

  /** The dialect over `database`, waiting at most `busyTimeoutMs` for a lock held by another process. */
  constructor(database: BetterSqlite3.Database, busyTimeoutMs: number) {
    super({ database });
    this.#database = database;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  override createDriver(): Driver {
    return new LockWaitingSqliteDriver(this.#database, this.#busyTimeoutMs);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/** SQLite's DDL runs in transactions; kysely's adapter says otherwise only to keep its Migrator out of them. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** kysely's SQLite driver, its one connection waiting out busy answers (see LockWaitingSqliteDialect). */
class LockWaitingSqliteDriver extends SqliteDriver {
  readonly #database: BetterSqlite3.Database;
  readonly #busyTimeoutMs: number;
  #connection: DatabaseConnection | undefined;

  constructor(database: BetterSqlite3.Database, busyTimeoutMs: number) {
    super({ database });
    this.#database = database;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#connection === undefined) {
      const inner = await super.acquireConnection();
      const wait = <T>(run: () => Promise<T>) => retryWhileBusy(this.#database, this.#busyTimeoutMs, "query", run);
      this.#connection = {
        executeQuery: (query, options) => wait(() => inner.executeQuery(query, options)),
        streamQuery: (query, chunkSize, options) => inner.streamQuery(query, chunkSize, options),
      };
    }
    return this.#connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}
