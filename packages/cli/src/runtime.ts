import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest, type Session } from "@palimpsest/runtime";
import type { OpenedEventStore } from "@palimpsest/store";
import type { CliIo } from "./cli-io.ts";
import { type DatabaseMode, openCommandStore } from "./database.ts";
import { sessionIdByPrefix, uniqueByPrefix } from "./id-prefix.ts";
import type { GlobalOptions } from "./output.ts";

/** Opens the runtime (see openCommandStore), runs `work` (given the store under it too), and always closes the store. */
export async function withRuntime<T>(
  options: GlobalOptions,
  io: CliIo,
  work: (runtime: Palimpsest, store: OpenedEventStore) => Promise<T>,
  mode: DatabaseMode = "read",
): Promise<T> {
  const store = await openCommandStore(options, io, mode);
  const runtime = new Palimpsest({ store, counterFor: createTokenCounter });
  let result: T;
  try {
    result = await work(runtime, store);
  } catch (error) {
    await runtime.close().catch(() => {}); // the command's error is the one to report
    throw error;
  }
  await runtime.close();
  return result;
}

/** Resumes a session by full id, by name or by a unique prefix of its id (as `sessions` prints them). */
export async function resumeByPrefix(runtime: Palimpsest, idOrPrefix: string): Promise<Session> {
  return runtime.resume(await sessionIdByPrefix(runtime.store, idOrPrefix));
}

/** The full id of a hand-off given by full id or by a unique prefix (as `handoff list` prints them). */
export async function handoffIdByPrefix(runtime: Palimpsest, idOrPrefix: string): Promise<string> {
  return uniqueByPrefix(
    "handoff",
    idOrPrefix,
    (await runtime.handoffs.list()).map((h) => h.handoffId),
  );
}
