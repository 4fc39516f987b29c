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
    return new LockWaitingSqliteAdapter();
  }
}

/** SQLite's DDL runs in transactions (kysely's adapter says otherwise only to keep its Migrator out of them). */
class LockWaitingSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** A transaction open on the one database connection: whose it is, and a promise that settles when it ends. */
interface OpenTransaction {
  owner: DatabaseConnection;
  ended: Promise<void>;
  end(): void;
}

/**
 * kysely's SQLite driver over one better-sqlite3 connection, lent out as many kysely connections: each
 * waits out busy answers on timers, and while one has a transaction open the others wait for its end
 * (statements of this process outside kysely, such as appends, are synchronous and never interleave with it).
 * Only the first acquire goes through kysely's one-connection mutex (SqliteDriver.acquireConnection): with
 * it on every query, every read of the process would queue behind a write waiting for a lock.
 */
class LockWaitingSqliteDriver extends SqliteDriver {
  readonly #database: BetterSqlite3.Database;
  readonly #busyTimeoutMs: number;
  #inner: DatabaseConnection | undefined;
  #transaction: OpenTransaction | undefined;

  constructor(database: BetterSqlite3.Database, busyTimeoutMs: number) {
    super({ database });
    this.#database = database;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    this.#inner ??= await super.acquireConnection();
    const inner = this.#inner;
    const connection: DatabaseConnection = {
      executeQuery: async (query) => {
        while (this.#transaction !== undefined && this.#transaction.owner !== connection) await this.#transaction.ended;
        return retryWhileBusy(this.#database, this.#busyTimeoutMs, "query", () => inner.executeQuery(query));
      },
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
    return connection;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    while (this.#transaction !== undefined) await this.#transaction.ended;
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.#transaction = { owner: connection, ended, end };
    try {
      await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    } catch (error) {
      this.#endTransaction();
      throw error;
    }
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await super.commitTransaction(connection); // kysely rolls back when the commit fails
    this.#endTransaction();
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } finally {
      this.#endTransaction();
    }
  }

  #endTransaction(): void {
    this.#transaction?.end();
    this.#transaction = undefined;
  }
}
