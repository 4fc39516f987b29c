import { checkOptionKeys, ValidationError } from "@palimpsest/core";
import { openerFor } from "../engine/engines.ts";
import { guardStorage } from "../engine/storage-guard.ts";
import type { PartitionedTable } from "../engine/table-partitions.ts";
import { DEFAULT_TENANT } from "../engine/tenant.ts";
import { openMigrated } from "./open-event-store.ts";

export type { PartitionedTable } from "../engine/table-partitions.ts";

/**
 * The tables a partitioned layout divides by session: every one whose keys lead with `session_id`
 * (test/contract/schema-keys.test.ts holds that), `sessions` first, as appends lock it first. The hand-off
 * queue, the audit checkpoints and the mirror are keyed otherwise and stay as they are.
 */
export const PARTITIONED_TABLES: readonly string[] = [
  "sessions",
  "events",
  "idempotency_keys",
  "snapshots",
  "log_keys",
  "precompaction_candidates",
  "audit_sessions",
  "audit_compactions",
  "audit_failures",
  "audit_supersessions",
  "audit_replacements",
];

/**
 * The most partitions partitionLog makes of a table. The conversion locks every table and index it makes
 * until it commits: PostgreSQL's default lock table (max_locks_per_transaction 64) holds 64 partitions of
 * the log, not 128.
 */
export const MAX_PARTITIONS = 256;

/** How partitionLog divides the log. */
export interface PartitionLogOptions {
  /** Into how many hash partitions each table is divided, 2 to MAX_PARTITIONS. */
  partitions: number;
  /** Called as each table is done (a large log takes minutes: a table's rows are copied). */
  onTable?: (table: PartitionedTable) => void;
}

/** What partitionLog did. */
export interface PartitionLogResult {
  /** Into how many partitions each table is divided now. */
  partitions: number;
  /** Each table, in the order it was done. */
  tables: PartitionedTable[];
  /** How long it all took, in ms. */
  ms: number;
}

/**
 * Divides the log's tables (PARTITIONED_TABLES) of the PostgreSQL database at `url` into `partitions`
 * hash partitions by `session_id`, migrating it first; the store works the same on either layout, and the
 * purge rewrites one partition at a time (docs/storage.md). One transaction: killed at any point, the
 * database is as it was; run again, a table already so divided is left alone. Other processes' reads and
 * writes wait until it commits. Needs the tables' owner. ValidationError for bad options or another
 * engine's URL; StorageError when the role may not replace the tables.
 */
export async function partitionLog(url: string, options: PartitionLogOptions): Promise<PartitionLogResult> {
  const { partitions, onTable = () => {} } = checkPartitionOptions(options);
  const opener = openerFor(url);
  const partitionTables = opener.partitionTables;
  if (partitionTables === undefined) {
    throw new ValidationError(`partitionLog: only a PostgreSQL log is partitioned, not ${opener.engine}`, [
      "url: postgres://…",
    ]);
  }
  const start = performance.now();
  const adapter = await openMigrated(opener, url, {}, DEFAULT_TENANT);
  try {
    const tables = await guardStorage("partitionLog", () =>
      partitionTables(adapter.db, PARTITIONED_TABLES, partitions, onTable),
    );
    return { partitions, tables, ms: Math.round(performance.now() - start) };
  } finally {
    await adapter.db.destroy();
  }
}

/** The options, checked: ValidationError naming the first that is wrong. */
function checkPartitionOptions(options: PartitionLogOptions): Required<PartitionLogOptions> {
  if (typeof options !== "object" || options === null) {
    throw new ValidationError("partitionLog takes an options object", ["options: not an object"]);
  }
  checkOptionKeys("partitionLog", options, { partitions: true, onTable: true });
  const { partitions, onTable = () => {} } = options;
  if (!Number.isSafeInteger(partitions) || partitions < 2 || partitions > MAX_PARTITIONS) {
    throw new ValidationError(
      `partitionLog: partitions must be a whole number from 2 to ${MAX_PARTITIONS}`,
      [`partitions: ${String(partitions)}`],
      { path: "partitions" },
    );
  }
  if (typeof onTable !== "function") {
    throw new ValidationError("partitionLog: onTable must be a function", ["onTable: not a function"], {
      path: "onTable",
    });
  }
  return { partitions, onTable };
}
