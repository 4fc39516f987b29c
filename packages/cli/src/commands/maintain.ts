import { type PurgeResult, ValidationError } from "@palimpsest/core";
import { DEFAULT_PURGE_WAIT_MS } from "@palimpsest/store";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.ts";
import { integerOption } from "../flags.ts";
import { emit, type GlobalOptions, table } from "../output.ts";
import { withRuntime } from "../runtime.ts";

/**
 * `maintain --purge-erased [--wait-timeout <ms>]`: the maintenance an erasure that must reach the disk
 * needs (docs/erasure.md): the relations that held session content are rewritten, so that no copy of the
 * erased sessions' content stays in the database's files (Palimpsest.purgeErased). Without a task flag it
 * does nothing and fails as a usage error. Other processes' reads and writes wait while a relation is
 * rewritten (PostgreSQL) or while the file is (SQLite).
 */
export function registerMaintain(program: Command, io: CliIo): void {
  program
    .command("maintain")
    .description("database maintenance: --purge-erased rewrites what held erased sessions' content")
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
    .action(async (opts: { purgeErased?: boolean; waitTimeout: number }) => {
      const global = program.opts<GlobalOptions>();
      if (opts.purgeErased !== true) {
        throw new ValidationError("maintain: name a task: --purge-erased", ["--purge-erased: missing"]);
      }
      const result = await withRuntime(global, io, (runtime) =>
        runtime.purgeErased({ waitTimeoutMs: opts.waitTimeout }),
      );
      emit(io, global, result, render);
    });
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
