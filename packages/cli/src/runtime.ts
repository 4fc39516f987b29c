import { type EventStore, NotFoundError, ValidationError } from "@palimpsest/core";
import { openPalimpsest, type Palimpsest, type Session } from "@palimpsest/store";
import type { GlobalOptions } from "./output.ts";

/** The database URL a command uses: `--db`, then PALIMPSEST_DATABASE_URL, then the embedded default. */
export function databaseUrl(options: GlobalOptions): string | undefined {
  return options.db ?? process.env.PALIMPSEST_DATABASE_URL ?? undefined;
}

/** Opens the runtime, runs `work`, and always closes the store. */
export async function withRuntime<T>(options: GlobalOptions, work: (runtime: Palimpsest) => Promise<T>): Promise<T> {
  const url = databaseUrl(options);
  const runtime = await openPalimpsest(url === undefined ? {} : { url });
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
  const matches = (await store.listSessions()).filter((s) => s.sessionId.startsWith(idOrPrefix));
  if (matches.length === 0) throw new NotFoundError("session", idOrPrefix);
  if (matches.length > 1) {
    throw new ValidationError(
      `session prefix ${idOrPrefix} is ambiguous`,
      matches.map((m) => m.sessionId),
    );
  }
  return (matches[0] as { sessionId: string }).sessionId;
}
