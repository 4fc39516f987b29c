import { isAbsolute, resolve } from "node:path";
import { type EventStore, NotFoundError, ValidationError } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import {
  DEFAULT_DATABASE_PATH,
  type KyselyEventStore,
  openEventStore,
  Palimpsest,
  type Session,
} from "@palimpsest/store";
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
 * Opens the command's store. A `read` command never creates a database: a SQLite file that does not
 * exist is NotFoundError (a mistyped `--db` does not leave an empty database behind).
 */
export function openCommandStore(options: GlobalOptions, io: CliIo, mode: DatabaseMode): Promise<KyselyEventStore> {
  return openEventStore(databaseUrl(options, io), { create: mode === "write" });
}

/** Opens the runtime (see openCommandStore), runs `work`, and always closes the store. */
export async function withRuntime<T>(
  options: GlobalOptions,
  io: CliIo,
  work: (runtime: Palimpsest) => Promise<T>,
  mode: DatabaseMode = "read",
): Promise<T> {
  const runtime = new Palimpsest({ store: await openCommandStore(options, io, mode), counterFor: createTokenCounter });
  let result: T;
  try {
    result = await work(runtime);
  } catch (error) {
    await runtime.close().catch(() => {}); // the command's error is the one to report
    throw error;
  }
  await runtime.close();
  return result;
}

/** Resumes a session by full id or by a unique prefix of it (as `sessions` prints them). */
export async function resumeByPrefix(runtime: Palimpsest, idOrPrefix: string): Promise<Session> {
  return runtime.resume(await sessionIdByPrefix(runtime.store, idOrPrefix));
}

/** The full id of a session given by full id or by a unique prefix; NotFoundError or ValidationError otherwise. */
export async function sessionIdByPrefix(
  store: Pick<EventStore, "getSession" | "listSessions">,
  idOrPrefix: string,
): Promise<string> {
  if ((await store.getSession(idOrPrefix)) !== undefined) return idOrPrefix;
  return uniqueByPrefix(
    "session",
    idOrPrefix,
    (await store.listSessions()).map((s) => s.sessionId),
  );
}

/**
 * The one id among `ids` that is `idOrPrefix` or starts with it, as with session ids: NotFoundError
 * when none does, ValidationError listing the candidates when several do.
 */
export function uniqueByPrefix(
  kind: "session" | "compaction" | "handoff",
  idOrPrefix: string,
  ids: readonly string[],
): string {
  if (ids.includes(idOrPrefix)) return idOrPrefix;
  const matches = [...new Set(ids.filter((id) => id.startsWith(idOrPrefix)))];
  if (matches.length === 0) throw new NotFoundError(kind, idOrPrefix);
  if (matches.length > 1) throw new ValidationError(`${kind} prefix ${idOrPrefix} is ambiguous`, matches);
  return matches[0] as string;
}

/** The full id of a hand-off given by full id or by a unique prefix (as `handoff list` prints them). */
export async function handoffIdByPrefix(runtime: Palimpsest, idOrPrefix: string): Promise<string> {
  return uniqueByPrefix(
    "handoff",
    idOrPrefix,
    (await runtime.handoffs.list()).map((h) => h.handoffId),
  );
}
