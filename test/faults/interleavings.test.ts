import { join } from "node:path";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import {
  type Acknowledged,
  acknowledged,
  addTo,
  type CheckedSessions,
  checkStore,
  integrityProblems,
  problemsOf,
} from "./fault-checks.ts";
import { faultDatabases } from "./fault-databases.ts";
import { bundleWorker, Worker, type WorkerMessage, type WorkerScript } from "./fault-process.ts";
import { FaultRandom } from "./fault-random.ts";
import { faultCount, faultProject, faultSeed } from "./fault-scale.ts";
import { cheapCounter } from "./fault-workload.ts";
import { type InterleavedOp, type InterleavingRun, isRaceError, type OpResult } from "./interleavings-protocol.ts";

const COUNT = faultCount(2_000, 10_000);
const seed = faultSeed();
const replay = `replay with PALIMPSEST_FAULT_SEED=${seed} node_modules/.bin/vitest run --project ${faultProject()} test/faults/interleavings.test.ts`;
/** A slot's session is replaced by a fresh one once its log is this long (checks read whole logs). */
const MAX_VERSION = 120;
/** Streams of interleavings run at once, each on its own sessions (the workers run one run of each at a time). */
const STREAMS = 4;

let script: WorkerScript;
beforeAll(async () => {
  script = await bundleWorker(join(import.meta.dirname, "interleavings-worker.ts"));
});
afterAll(() => script?.dispose());

/** One worker's operations: a few, seeded, on the interleaving's slots. */
function schedule(random: FaultRandom, slots: number, next: () => number, successor: () => string): InterleavedOp[] {
  return Array.from({ length: random.int(1, 3) }, (): InterleavedOp => {
    const slot = random.int(0, slots - 1);
    const kind = random.weighted<InterleavedOp["kind"]>([
      ["append", 45],
      ["compact", 12],
      ["range", 10],
      ["handoff", 6],
      ["request", 4],
      ["complete", 4],
      ["read", 19],
    ]);
    if (kind === "append") return { kind, slot, n: next() };
    if (kind === "compact") return { kind, slot, policy: random.next() < 0.5 ? "summary" : "prune-first" };
    if (kind === "handoff" || kind === "request") return { kind, slot, to: successor() };
    if (kind === "complete") return { kind };
    return { kind, slot };
  });
}

/** Records what a result acknowledges; returns its error's key ("CODE rule") when it ended in one. */
function record(acked: Acknowledged, result: OpResult): string | undefined {
  const session = result.session;
  if (session !== undefined && result.messages !== undefined) addTo(acked.messages, session, result.messages);
  if (session !== undefined && result.turn !== undefined) addTo(acked.turns, session, [result.turn]);
  for (const id of result.compactions ?? []) acked.compactions.set(id, session ?? "");
  if (result.handoff !== undefined) acked.handoffs.set(result.handoff.from, result.handoff.to);
  return result.error === undefined
    ? undefined
    : `${result.error.code}${result.error.rule ? ` ${result.error.rule}` : ""}`;
}

/** Figures of an interleavings run, for the report and RELIABILITY.md. */
interface InterleavingFigures {
  interleavings: number;
  ops: number;
  acknowledged: number;
  /** Typed errors the races legitimately ended in (a seal or claim the other worker took, a range it compacted away), by code and rule. */
  conflicts: Record<string, number>;
  lost: number;
  duplicated: number;
  invalid: number;
}

/** Sends runs to a worker and matches its replies to them by id (a worker runs several at once). */
function dispatcher(worker: Worker) {
  const waiting = new Map<number, (reply: WorkerMessage | undefined) => void>();
  void (async () => {
    for (let reply = await worker.next(); reply !== undefined; reply = await worker.next()) {
      waiting.get(reply.id as number)?.(reply);
    }
    for (const resolve of waiting.values()) resolve(undefined);
  })();
  return async (run: InterleavingRun): Promise<WorkerMessage | undefined> => {
    const reply = new Promise<WorkerMessage | undefined>((resolve) => waiting.set(run.id, resolve));
    await worker.send(run);
    const answer = await reply;
    waiting.delete(run.id);
    return answer;
  };
}

for (const database of faultDatabases("interleave")) {
  describe.skipIf(database.skip !== undefined)(
    `interleavings of two processes (${database.name}, seed ${seed})`,
    () => {
      let url: string;
      let runtime: Palimpsest;
      let store: Awaited<ReturnType<typeof openEventStore>>;
      const workers: Worker[] = [];
      const tag = `il${seed}`;
      beforeAll(async () => {
        url = await database.create();
        store = await openEventStore(url);
        runtime = new Palimpsest({ store, counterFor: async () => cheapCounter });
        for (let w = 0; w < 2; w++) {
          const worker = new Worker(script);
          workers.push(worker);
          await worker.send({ url, worker: w });
          expect((await worker.next())?.t).toBe("ready");
        }
      });
      afterAll(async () => {
        await Promise.all(workers.map((w) => w.kill()));
        await runtime?.close();
        await database.dispose();
      });

      it(`${COUNT} seeded interleavings of appends, compactions, hand-offs and reads lose, double and break nothing; no conflict reaches a caller`, async () => {
        const checked: CheckedSessions = new Map();
        const figures: InterleavingFigures = {
          interleavings: 0,
          ops: 0,
          acknowledged: 0,
          conflicts: {},
          lost: 0,
          duplicated: 0,
          invalid: 0,
        };
        const send = workers.map(dispatcher);
        let n = 0;
        let nextId = 0;

        /** One stream: COUNT / STREAMS interleavings one after another, on sessions of its own. */
        async function stream(p: number): Promise<void> {
          const random = new FaultRandom(seed + p);
          const pool: (string | undefined)[] = [];
          for (let i = 0; i < COUNT / STREAMS; i++) {
            const id = nextId++;
            const slots: string[] = [];
            for (let s = 0; s < (random.next() < 0.4 ? 3 : 1); s++) {
              const current = pool[s];
              const version = current === undefined ? 0 : (checked.get(current)?.log.length ?? 0);
              if (current === undefined || version > MAX_VERSION || random.next() < 0.2) {
                const session = await runtime.startSession({
                  sessionId: `${tag}-p${p}-i${i}-s${s}`,
                  model: "gpt-4.1",
                  contextWindow: 4_000,
                });
                for (let k = random.int(0, 2); k > 0; k--) await session.append(exchange(n++));
                pool[s] = session.id;
              }
              slots.push(pool[s] as string);
            }
            let k = 0;
            const schedules = workers.map((_, w) =>
              schedule(
                random,
                slots.length,
                () => n++,
                () => `${tag}-p${p}-i${i}-w${w}-${k++}`,
              ),
            );
            const target = `${tag}-p${p}`;
            const replies = await Promise.all(
              send.map((to, w) => to({ t: "run", id, target, slots, ops: schedules[w] ?? [] })),
            );
            const acked = acknowledged();
            const unexpected: string[] = [];
            const touched = new Set(slots);
            for (const [w, reply] of replies.entries()) {
              if (reply?.t !== "done")
                throw new Error(`worker ${w} did not finish interleaving ${id}: ${workers[w]?.stderr}\n${replay}`);
              for (const result of [...(reply.results as OpResult[]), ...(reply.afterTurn as OpResult[])]) {
                figures.ops++;
                const error = record(acked, result);
                if (result.handoff !== undefined) touched.add(result.handoff.from).add(result.handoff.to);
                if (result.session !== undefined) touched.add(result.session);
                unexpected.push(
                  ...(result.problems ?? []).map((problem) => `worker ${w} read an invalid view: ${problem}`),
                );
                if (error === undefined) continue;
                if (result.error !== undefined && isRaceError(result.error, result.op))
                  figures.conflicts[error] = (figures.conflicts[error] ?? 0) + 1;
                else
                  unexpected.push(
                    `worker ${w}: ${JSON.stringify(result.op)} failed with ${error}: ${result.error?.message}\n${result.error?.stack ?? ""}`,
                  );
              }
            }
            figures.acknowledged +=
              [...acked.messages.values()].reduce((m, ids) => m + ids.size, 0) +
              acked.compactions.size +
              acked.handoffs.size;
            const report = await checkStore(store, runtime, acked, { audit: false, checked, sessions: [...touched] });
            figures.lost += report.lost.length;
            figures.duplicated += report.duplicated.length;
            figures.invalid += report.invalid.length;
            figures.interleavings++;
            const problems = [...unexpected, ...problemsOf(report)];
            if (problems.length > 0) {
              throw new Error(
                `interleaving ${i} of stream ${p} on ${database.name}, seed ${seed} (${replay}):\n${JSON.stringify(schedules)}\n${problems.join("\n")}`,
              );
            }
            // Each slot goes on in the tip of its hand-off chain.
            pool.forEach((start, s) => {
              let tip = start;
              for (
                let to = tip && checked.get(tip)?.sealedTo;
                to !== undefined && checked.has(to);
                to = checked.get(to)?.sealedTo
              )
                tip = to;
              pool[s] = tip;
            });
          }
        }

        const started = performance.now();
        await Promise.all(Array.from({ length: STREAMS }, (_, p) => stream(p)));
        const final = await checkStore(store, runtime, acknowledged(), { audit: true, settled: true, checked });
        const problems = [...problemsOf(final), ...integrityProblems(url)];
        const seconds = Math.round((performance.now() - started) / 100) / 10;
        console.log(
          `interleaving figures (${database.name}, seed ${seed}): ${JSON.stringify({ ...figures, sessions: final.sessions, events: final.events, seconds })}`,
        );
        expect(problems, replay).toEqual([]);
        expect(figures.interleavings).toBe(COUNT);
      }, 900_000);
    },
  );
}
