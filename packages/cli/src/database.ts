import { isAbsolute, resolve } from "node:path";
import { type Keyring, NotFoundError, ValidationError } from "@palimpsest/core";
import { DEFAULT_DATABASE_PATH, type OpenedEventStore, openEventStore, openLocalKeyring } from "@palimpsest/store";
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
 * variable counts as unset), encrypting with the local keyring in `--keyring`, else PALIMPSEST_KEYRING,
 * when one is named (see commandKeyring). A `read` command never creates a database: a SQLite file that
 * does not exist is NotFoundError (a mistyped `--db` does not leave an empty database behind), saying how one comes to be.
 */
export async function openCommandStore(
  options: GlobalOptions,
  io: CliIo,
  mode: DatabaseMode,
): Promise<OpenedEventStore> {
  const tenant = options.tenant ?? (io.env.PALIMPSEST_TENANT || undefined);
  const keyring = await commandKeyring(options, io);
  try {
    return await openEventStore(databaseUrl(options, io), {
      create: mode === "write",
      ...(tenant === undefined ? {} : { tenant }),
      ...(keyring === undefined ? {} : { keyring }),
    });
  } catch (error) {
    // A command that reads never creates the database (a mistyped --db leaves nothing behind): say how one comes to be.
    if (!(error instanceof NotFoundError && error.details.kind === "file")) throw error;
    const where = options.db === undefined ? "PALIMPSEST_DATABASE_URL or --db" : "--db";
    throw new NotFoundError("file", error.details.id, {
      hint: `no database there yet: \`palimpsest import <transcript>\` creates it, or name another with ${where}`,
    });
  }
}

/**
 * The local keyring a command reads and writes content with (docs/encryption.md): the folder `--keyring`,
 * else PALIMPSEST_KEYRING (relative to the working directory), under the master key PALIMPSEST_MASTER_KEY
 * (base64 of 32 bytes; never a flag, so it stays out of the process list). None when no folder is named;
 * a folder without a valid master key is a ValidationError.
 */
async function commandKeyring(options: GlobalOptions, io: CliIo): Promise<Keyring | undefined> {
  const directory = options.keyring ?? (io.env.PALIMPSEST_KEYRING || undefined);
  if (directory === undefined) return undefined;
  const encoded = io.env.PALIMPSEST_MASTER_KEY ?? "";
  const masterKey = Buffer.from(encoded, "base64");
  if (masterKey.length !== 32) {
    throw new ValidationError(
      "a keyring needs its master key in PALIMPSEST_MASTER_KEY: 32 bytes in base64 (openssl rand -base64 32)",
      [`PALIMPSEST_MASTER_KEY: ${encoded === "" ? "not set" : `${masterKey.length} bytes`}`],
      { path: "PALIMPSEST_MASTER_KEY" },
    );
  }
  return openLocalKeyring({ directory: resolve(io.cwd, directory), masterKey });
}
