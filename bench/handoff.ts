/**
 * Hand-off claims: claims per second of one claimer against four racing claimers (each with its own
 * store and connections) draining the same queue, timed alternately; every hand-off claimed exactly once.
 */
import { openEventStore } from "@palimpsest/store";
import { databaseOf } from "../test/support/store-database.ts";
import { median, progress, timed } from "./stats.ts";

/** Claims per second with one claimer and with `racers` claimers on one engine. */
export interface HandoffResult {
  engine: "postgres" | "sqlite";
  handoffsPerRep: number;
  reps: number;
  racers: number;
  onePerSec: number;
  racingPerSec: number;
}

const RACERS = 4;
const LEASE_MS = 600_000;

/** Queues `count` fresh hand-offs, then times `claimers` claimers taking them until none is left. */
async function drain(
  stores: Awaited<ReturnType<typeof openEventStore>>[],
  claimers: number,
  count: number,
  label: string,
): Promise<number> {
  const queue = stores[0]?.handoffQueue;
  if (queue === undefined) throw new Error("handoff bench: no store");
  for (let i = 0; i < count; i++) {
    await queue.insert({ sourceSessionId: `${label}-source-${i}`, successorSessionId: `${label}-next-${i}` });
  }
  const claimed: string[] = [];
  const claimer = async (store: (typeof stores)[number], n: number) => {
    for (;;) {
      const claim = await store.handoffQueue.claim({ claimant: `${label}-${n}`, leaseMs: LEASE_MS });
      if (claim === undefined) return;
      claimed.push(claim.handoffId);
    }
  };
  const run = await timed(() => Promise.all(stores.slice(0, claimers).map(claimer)));
  if (claimed.length !== count || new Set(claimed).size !== count) {
    throw new Error(`handoff bench: ${claimed.length} claims of ${count} hand-offs, ${new Set(claimed).size} distinct`);
  }
  // As completions would: claimed rows left open would make every later claim skip past them.
  const first = stores[0];
  if (first !== undefined)
    await databaseOf(first)
      .updateTable("handoffs")
      .set({ status: "completed" })
      .where("status", "=", "claimed")
      .execute();
  return (count / run.ms) * 1000;
}

/** Runs the claim race on the database at `url`. */
export async function runHandoffBench(
  engine: "postgres" | "sqlite",
  url: string,
  quick: boolean,
): Promise<HandoffResult> {
  const stores = await Promise.all(Array.from({ length: RACERS }, () => openEventStore(url)));
  const count = quick ? 300 : 1_000;
  const reps = quick ? 3 : 5;
  const one: number[] = [];
  const racing: number[] = [];
  try {
    for (let rep = -1; rep < reps; rep++) {
      const alone = await drain(stores, 1, count, `one-${rep}`);
      const raced = await drain(stores, RACERS, count, `race-${rep}`);
      progress(`handoff ${engine}: 1 claimer ${alone.toFixed(0)}/s, ${RACERS} claimers ${raced.toFixed(0)}/s`);
      if (rep < 0) continue; // warmup
      one.push(alone);
      racing.push(raced);
    }
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
  return {
    engine,
    handoffsPerRep: count,
    reps,
    racers: RACERS,
    onePerSec: median(one),
    racingPerSec: median(racing),
  };
}
