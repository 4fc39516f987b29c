/**
 * Erasing a session's content (`store.erase`): the time to erase sessions of 500 and 5,000 messages, beside
 * the baseline of reading the same session's whole log (`readStream`) in the same run, as a ratio. Each
 * rep erases a fresh copy (an erased session cannot be erased again).
 */
import { openEventStore } from "@palimpsest/store";
import { median, progress, timed } from "./stats.ts";
import { messageEvents, STARTED } from "./workload.ts";

/** Median times of one erasure and of one full read of the same session. */
export interface EraseResult {
  engine: "postgres" | "sqlite";
  messages: number;
  eraseMs: number;
  readMs: number;
}

/** Writes sessions of each size and times erasing them against reading their logs. */
export async function runEraseBench(
  engine: "postgres" | "sqlite",
  url: string,
  quick: boolean,
): Promise<EraseResult[]> {
  const sizes = quick ? [500] : [500, 5_000];
  const reps = quick ? 3 : 5;
  const store = await openEventStore(url);
  const results: EraseResult[] = [];
  try {
    for (const messages of sizes) {
      const erase: number[] = [];
      const read: number[] = [];
      for (let rep = -1; rep < reps; rep++) {
        const sessionId = `erase-bench-${messages}-${rep + 1}`;
        await store.append(sessionId, [STARTED, ...messageEvents(0, messages)], { expectedVersion: "no-stream" });
        const r = await timed(() => store.readStream(sessionId));
        const e = await timed(() => store.erase(sessionId));
        if (r.value.length !== messages + 1 || !e.value.erased) throw new Error("erase bench: unexpected result");
        if (rep < 0) continue; // warmup
        read.push(r.ms);
        erase.push(e.ms);
      }
      const result = { engine, messages, eraseMs: median(erase), readMs: median(read) };
      progress(
        `erase ${engine} ${messages}: erase ${result.eraseMs.toFixed(0)} ms, read ${result.readMs.toFixed(0)} ms`,
      );
      results.push(result);
    }
  } finally {
    await store.close();
  }
  return results;
}
