/**
 * Run as its own process by session-store-kills.test.ts: opens openSessionStore on the URL it is sent
 * (encrypting with the local keyring it is sent, if any),
 * then runs the operations it is sent one by one (append a batch, flush the folds, delete a key),
 * saying "begin" before each and "end" (with how long it took) after it, until the parent SIGKILLs it
 * or sends "exit". Fold errors are reported too ("fold-error"), so a failed fold is never silent.
 */
import type { SessionKey, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore, type PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { report } from "./fault-process.ts";
import { openWorkerKeyring, type WorkerKeys } from "./worker-keys.ts";

/** One operation the parent asks for. */
export type StoreOperation =
  | { op: "append"; key: SessionKey; entries: SessionStoreEntry[] }
  | { op: "flush" }
  | { op: "delete"; key: SessionKey };

/** A message from the parent: open the store (encrypting with `keys` when given), run an operation (numbered), or exit. */
export type WorkerRequest =
  | { t: "open"; url: string; keys?: WorkerKeys }
  | { t: "run"; n: number; operation: StoreOperation }
  | { t: "exit" };

let store: PalimpsestSessionStore | undefined;
let queue = Promise.resolve();

async function handle(request: WorkerRequest): Promise<void> {
  if (request.t === "open") {
    const { keys } = request;
    store = await openSessionStore({
      url: request.url,
      ...(keys === undefined ? {} : { keyring: await openWorkerKeyring(keys) }),
      settleMs: 50,
      onError: (error) => void report({ t: "fold-error", message: String(error) }),
    });
    await report({ t: "opened" });
    return;
  }
  if (request.t === "exit") {
    await store?.close();
    process.disconnect();
    return;
  }
  if (store === undefined) throw new Error("run before open");
  const { n, operation } = request;
  await report({ t: "begin", n, op: operation.op });
  const started = performance.now();
  if (operation.op === "append") await store.append(operation.key, operation.entries);
  else if (operation.op === "flush") await store.flush();
  else await store.delete(operation.key);
  await report({ t: "end", n, op: operation.op, ms: performance.now() - started });
}

process.on("message", (request: WorkerRequest) => {
  // Operations run in the order they were sent, as the SDK calls a store.
  queue = queue.then(() =>
    handle(request).catch(async (error: unknown) => {
      await report({ t: "error", message: String(error) });
      process.exit(1);
    }),
  );
});
