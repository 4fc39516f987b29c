import { isPalimpsestError, type PurgeResult, ValidationError } from "@palimpsest/core";
import {
  DEFAULT_PURGE_WAIT_MS,
  MAX_PARTITIONS,
  type PartitionedTable,
  type PartitionLogOptions,
  type PartitionLogResult,
  partitionLog,
} from "@palimpsest/store";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { databaseUrl } from "../database.ts";
import { integerOption } from "../flags.ts";
import { emit, type GlobalOptions, table } from "../output.ts";
import { withRuntime } from "../runtime.ts";

/** The tasks `maintain` runs, as the usage error names them. */
const TASKS = "--purge-erased or --partition <n>";

/**
 * `maintain --purge-erased [--wait-timeout <ms>]`: the maintenance an erasure that must reach the disk
 * needs (docs/erasure.md): the relations that held session content are rewritten, so that no copy of the
 * erased sessions' content stays in the database's files (Palimpsest.purgeErased). Other processes' reads
 * and writes wait while a relation is rewritten (PostgreSQL) or while the file is (SQLite).
 *
 * `maintain --partition <n>`: divides a PostgreSQL log's tables into `n` hash partitions by session
 * (partitionLog, docs/storage.md), a line on stderr per table as it is done. One task per run; none is a
 * usage error.
 */
export function registerMaintain(program: Command, io: CliIo): void {
  program
    .command("maintain")
    .description(`database maintenance: ${TASKS}`)
    .option(
      "--purge-erased",
      "rewrite the relations that held session content (PostgreSQL: VACUUM FULL of each; SQLite: VACUUM, the WAL emptied), so no copy of erased content stays in the database's files",
    )
    .addOption(
      integerOption(
        "--wait-timeout <ms>",
        "how long to wait, per relation, for other transactions' locks and older snapshots",
        0,
      ).default(DEFAULT_PURGE_WAIT_MS),
    )
    .addOption(
      integerOption(
        "--partition <n>",
        "PostgreSQL: divide the log's tables into n hash partitions by session, in one transaction (other processes' reads and writes wait for it)",
        2,
        MAX_PARTITIONS,
      ),
    )
    .action(async (opts: { purgeErased?: boolean; waitTimeout: number; partition?: number }) => {
      const global = program.opts<GlobalOptions>();
      const purge = opts.purgeErased === true;
      if (purge === (opts.partition !== undefined)) {
        const issue = purge ? "both given: run them one after the other" : "missing";
        throw new ValidationError(`maintain: name one task: ${TASKS}`, [`${TASKS}: ${issue}`]);
      }
      if (opts.partition !== undefined) {
        const result = await partitionCommandLog(databaseUrl(global, io), {
          partitions: opts.partition,
          onTable: (t) => io.stderr(`${tableLine(t)}\n`),
        });
        emit(io, global, result, renderPartition);
        return;
      }
      const result = await withRuntime(global, io, (runtime) =>
        runtime.purgeErased({ waitTimeoutMs: opts.waitTimeout }),
      );
      emit(io, global, result, render);
    });
}

/**
 * partitionLog on the command's database; its refusal of a database that is not PostgreSQL (the URL is a
 * known one of another engine) said as the command's: `maintain --partition` needs a PostgreSQL database.
 */
async function partitionCommandLog(url: string, options: PartitionLogOptions): Promise<PartitionLogResult> {
  try {
    return await partitionLog(url, options);
  } catch (error) {
    // The CLI checked n; an unknown or empty URL is refused at `url` (path "url"), as every command refuses it.
    const otherEngine = isPalimpsestError(error, "VALIDATION") && !("path" in error.details) && !isPostgresUrl(url);
    if (!otherEngine) throw error;
    throw new ValidationError(
      "maintain --partition works only on a PostgreSQL database; this one is a SQLite database",
      ["--db: give a postgres://… URL (or set PALIMPSEST_DATABASE_URL to one) to partition its log"],
      { path: "--partition" },
    );
  }
}

/** Whether `url` names a PostgreSQL database (the store's postgres:// and postgresql:// forms). */
function isPostgresUrl(url: string): boolean {
  return url.startsWith("postgres://") || url.startsWith("postgresql://");
}

/** One table of a conversion, as its progress line says it. */
function tableLine(t: PartitionedTable): string {
  return t.converted ? `${t.name}: ${t.rows} rows divided in ${t.ms} ms` : `${t.name}: already divided so`;
}

/** The conversion as text: its tables, then the total. */
function renderPartition(result: PartitionLogResult): string {
  const changed = result.tables.filter((t) => t.converted).length;
  return `${changed} of ${result.tables.length} tables divided into ${result.partitions} partitions by session in ${result.ms} ms`;
}

/** The purge as text: one row per relation rewritten, then the totals. */
function render(result: PurgeResult): string {
  if (result.relations.length === 0) return "nothing to purge: this store keeps no files";
  const rows = result.relations.map((r) => [r.name, size(r.bytesBefore), size(r.bytesAfter), `${r.ms} ms`]);
  return [
    table(["relation", "before", "after", "rewritten in"], rows),
    `purged in ${result.ms} ms, of which ${result.waitedMs} ms waiting for other transactions`,
  ].join("\n");
}

/** A size in bytes, in the largest binary unit that keeps it at 1 or more. */
function size(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
