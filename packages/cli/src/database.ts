import { isAbsolute, resolve } from "node:path";
import { DEFAULT_DATABASE_PATH, type OpenedEventStore, openEventStore } from "@palimpsest/store";
import type { CliIo } from "./cli-io.ts";
import type { GlobalOptions } from "./output.ts";

/**
 * The database URL a command uses: `--db`, then PALIMPSEST_DATABASE_URL, then the embedded default;
 * a relative SQLite path (plain or `file:`) is resolved against the run's working directory.
 */
export function databaseUrl(options: GlobalOptions, io: CliIo): string {
  const url = options.db ?? io.env.PALIMPSEST_DATABASE_URL ?? DEFAULT_DATABASE_PATH;
  const filePath = url.startsWith("file:") && !url.startsWith("file://") ? url.slice("file:".length) : undefined;
  if (filePath !== undefined)
    return filePath === "" || isAbsolute(filePath) ? url : `file:${resolve(io.cwd, filePath)}`;
  const plainPath = !/^[A-Za-z][A-Za-z0-9+.-]+:/.test(url) && url !== "" && url !== ":memory:";
  return plainPath && !isAbsolute(url) ? resolve(io.cwd, url) : url;
}

/** Whether a command may create the database (`write`) or needs one that exists (`read`). */
export type DatabaseMode = "read" | "write";

/**
 * Opens the command's store, of `--tenant`, else PALIMPSEST_TENANT, else the default tenant (an empty
 * variable counts as unset). A `read` command never creates a database: a SQLite file that does not
 * exist is NotFoundError (a mistyped `--db` does not leave an empty database behind).
 */
export function openCommandStore(options: GlobalOptions, io: CliIo, mode: DatabaseMode): Promise<OpenedEventStore> {
  const tenant = options.tenant ?? (io.env.PALIMPSEST_TENANT || undefined);
  return openEventStore(databaseUrl(options, io), {
    create: mode === "write",
    ...(tenant === undefined ? {} : { tenant }),
  });
}
