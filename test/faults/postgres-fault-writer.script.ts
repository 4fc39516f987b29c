/**
 * Run as its own process by the PostgreSQL fault suites: on session argv[3] of the store at argv[2], step
 * after step appends one exchange (idempotency key `step-<n>`), reads the log's tail back, and every third step
 * compacts; until its stdin closes. Each call that fails is retried the way docs/library.md ("Failures") tells callers to:
 * an append with the same key, a compaction after a refresh (skipped when the failed attempt committed).
 * Prints JSON lines: `begin` / `acked` per operation, `failed` per failure seen, then `done` with a digest
 * of its view. Exits 3 on any failure that is not a retryable STORAGE error; an unhandled error event
 * (the old dropped-connection crash) kills it with a non-zero code.
 */
import { createHash } from "node:crypto";
import { isPalimpsestError, StorageError } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { compact, Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { exchange } from "../support/exchange.ts";

const [url = "", sessionId = ""] = process.argv.slice(2);
const MAX_ATTEMPTS = 400;

let stopping = false;
process.stdin.on("end", () => {
  stopping = true;
});
process.stdin.resume();

const say = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `run` until it succeeds, retrying retryable STORAGE errors only (with a short backoff). */
async function retrying<T>(op: string, step: number, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const retryable = error instanceof StorageError && error.details.retryable;
      const code = isPalimpsestError(error) ? error.code : "untyped";
      say({ failed: op, step, code, retryable, message: error instanceof Error ? error.message : String(error) });
      if (!retryable || attempt >= MAX_ATTEMPTS) throw error;
      await sleep(Math.min(2 ** attempt, 100));
    }
  }
}

try {
  const store = await retrying("open", 0, () => openEventStore(url));
  const runtime = new Palimpsest({ store, counterFor: createTokenCounter });
  const session = await retrying("resume", 0, () => runtime.resume(sessionId));
  for (let step = 0; !stopping; step++) {
    say({ begin: "append", step });
    await retrying("append", step, () => session.append(exchange(step), { idempotencyKey: `step-${step}` }));
    say({ acked: "append", step, ids: exchange(step).map((m) => m.id) });
    say({ begin: "read", step });
    const fromSeq = Math.max(1, session.state.lastSeq - 20);
    await retrying("read", step, () => store.readStream(sessionId, { fromSeq }));
    if (step % 3 !== 2) continue;
    say({ begin: "compact", step });
    const basis = session.state.viewVersion;
    let attempted = false;
    const status = await retrying("compact", step, async () => {
      if (attempted) {
        await session.refresh();
        if (session.state.viewVersion !== basis) return "compacted"; // the failed attempt had committed
      }
      attempted = true;
      return (await compact(session, { policy: "summary", force: true, allowGrowth: true })).status; // the write loop under test, not the growth refusal
    });
    say({ acked: "compact", step, status });
  }
  const view = createHash("sha256").update(JSON.stringify(session.view())).digest("hex");
  say({ done: true, view, lastSeq: session.state.lastSeq });
  await store.close();
} catch (error) {
  say({ fatal: error instanceof Error ? error.message : String(error) });
  process.exit(3);
}
