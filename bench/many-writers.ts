/**
 * Many writers on one session: aggregate turns per second of 4 processes writing whole turns to one
 * session (each turn: the user's message, the call with its result and the answer, completeTurn with
 * automatic compaction, through the public Session), beside 1 process alone and beside the same 4
 * processes each on a session of its own (the load without the contention). The workers are the fault
 * suite's (test/faults/many-writers-worker.ts), started together at a barrier.
 */
import { join } from "node:path";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { bundleWorker, Worker } from "../test/faults/fault-process.ts";
import { cheapCounter } from "../test/faults/fault-workload.ts";
import type { WorkerSetup } from "../test/faults/many-writers-worker.ts";
import { median, percentile, progress } from "./stats.ts";

/** How the writers are laid out over sessions. */
export type WritersLayout = "1 writer, 1 session" | "4 writers, 1 session" | "4 writers, 4 sessions";

const LAYOUTS: readonly { layout: WritersLayout; writers: number; sessions: number }[] = [
  { layout: "1 writer, 1 session", writers: 1, sessions: 1 },
  { layout: "4 writers, 1 session", writers: 4, sessions: 1 },
  { layout: "4 writers, 4 sessions", writers: 4, sessions: 4 },
];

/** One layout on one engine: aggregate turns per second (median over the reps), and one turn's p50 and p99 over all of them. */
export interface ManyWritersResult {
  engine: "postgres" | "sqlite";
  layout: WritersLayout;
  turnsPerWriter: number;
  reps: number;
  turnsPerSec: number;
  p50TurnMs: number;
  p99TurnMs: number;
  errors: number;
}

/** Runs every layout on the database at `url` (a fresh one: sessions are created here). */
export async function runManyWritersBench(
  engine: "postgres" | "sqlite",
  url: string,
  quick: boolean,
): Promise<ManyWritersResult[]> {
  const turns = quick ? 40 : 100;
  const reps = quick ? 1 : 3;
  const script = await bundleWorker(join(import.meta.dirname, "../test/faults/many-writers-worker.ts"));
  const runtime = new Palimpsest({ store: await openEventStore(url), counterFor: async () => cheapCounter });
  const results: ManyWritersResult[] = [];
  let run = 0;
  try {
    for (const { layout, writers, sessions } of LAYOUTS) {
      const rates: number[] = [];
      const turnMs: number[] = [];
      let errors = 0;
      for (let rep = 0; rep < reps; rep++) {
        progress(`many-writers ${engine}: ${layout}, rep ${rep + 1}/${reps}`);
        const ids: string[] = [];
        for (let s = 0; s < sessions; s++) {
          const sessionId = `bench-many-writers-${run}-${s}`;
          await runtime.startSession({ sessionId, model: "gpt-4.1", contextWindow: 4_000 });
          ids.push(sessionId);
        }
        run++;
        const workers = Array.from({ length: writers }, () => new Worker(script));
        try {
          const next = async (worker: Worker, t: string) => {
            const message = await worker.next();
            if (message?.t !== t) throw new Error(`a writer said ${JSON.stringify(message)}:\n${worker.stderr}`);
            return message;
          };
          await Promise.all(
            workers.map((worker, w) =>
              worker.send({
                t: "setup",
                url,
                worker: w,
                surface: "session",
                sessionId: ids[w % sessions] as string,
                keyed: false,
                turns,
              } satisfies WorkerSetup),
            ),
          );
          await Promise.all(workers.map((worker) => next(worker, "ready")));
          await Promise.all(workers.map((worker) => worker.send({ t: "go" })));
          const done = await Promise.all(workers.map((worker) => next(worker, "done")));
          const slowest = Math.max(...done.map((d) => d.ms as number));
          errors += done.reduce((n, d) => n + (d.errors as unknown[]).length, 0);
          for (const d of done) turnMs.push(...(d.turnMs as number[]));
          rates.push((writers * turns) / (slowest / 1000));
        } finally {
          await Promise.all(workers.map((worker) => worker.kill()));
        }
      }
      results.push({
        engine,
        layout,
        turnsPerWriter: turns,
        reps,
        turnsPerSec: median(rates),
        p50TurnMs: percentile(turnMs, 0.5),
        p99TurnMs: percentile(turnMs, 0.99),
        errors,
      });
    }
  } finally {
    await runtime.close();
    await script.dispose();
  }
  return results;
}
