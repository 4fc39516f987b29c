/**
 * Many writers on one session (issue 26): 2 and 4 processes, started together at a barrier, each run
 * whole agent turns on the same session through one public surface (Session, the OpenAI Agents SDK
 * session, the AI SDK conversation, the Claude Agent SDK SessionStore), with and without idempotency
 * keys, on both engines, with automatic compaction on. Nothing may reach a caller (no conflict, no error
 * from a call or a callback), no acknowledged message may be lost or stored twice, and the view every
 * writer leaves must be valid (invariants 1-3 of docs/architecture.md).
 */
import { join } from "node:path";
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { messageText, type StoredEvent } from "@palimpsest/core";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { viewProblems } from "../support/view-invariants.ts";
import { faultDatabases } from "./fault-databases.ts";
import { bundleWorker, Worker, type WorkerScript } from "./fault-process.ts";
import { faultCount, faultTier } from "./fault-scale.ts";
import { cheapCounter, type ReportedError } from "./fault-workload.ts";
import { MARKED, marker, markersIn, SURFACES, type Surface, storeKey } from "./many-writers-surfaces.ts";
import type { WorkerSetup } from "./many-writers-worker.ts";

// Quick: enough turns for compactions to race them (2 processes × 100 turns make about 5).
const TURNS = faultCount(100, 400, 40);
/** How many processes write at once: 2 and 4, only 2 at the quick tier (a run's cost is mostly its processes' starts). */
const PROCESSES = faultTier() === "quick" ? [2] : [2, 4];

let script: WorkerScript;
beforeAll(async () => {
  // The SessionStore opens its own runtime, with the real tokenizer.
  script = await bundleWorker(join(import.meta.dirname, "many-writers-worker.ts"), { tokenizer: true });
});
afterAll(() => script?.dispose());

/** What one run found; every count but turns and ms must be 0. */
interface RunFigures {
  turns: number;
  errors: ReportedError[];
  lost: string[];
  doubled: string[];
  invalid: string[];
  /** Wall time of the slowest worker's turns. */
  ms: number;
}

/** Runs `processes` workers of `surface` on one new session at once; what they acknowledged and reported. */
async function runWorkers(url: string, setup: Omit<WorkerSetup, "t" | "worker" | "url">, processes: number) {
  const workers = Array.from({ length: processes }, () => new Worker(script));
  try {
    const next = async (worker: Worker, t: string) => {
      const message = await worker.next();
      if (message?.t !== t) throw new Error(`a worker said ${JSON.stringify(message)}, not ${t}:\n${worker.stderr}`);
      return message;
    };
    await Promise.all(workers.map((worker, w) => worker.send({ t: "setup", ...setup, url, worker: w })));
    await Promise.all(workers.map((worker) => next(worker, "ready")));
    await Promise.all(workers.map((worker) => worker.send({ t: "go" })));
    return await Promise.all(
      workers.map(async (worker) => {
        const done = await next(worker, "done");
        return {
          acknowledged: done.acknowledged as number[],
          errors: done.errors as ReportedError[],
          problems: done.problems as string[],
          ms: done.ms as number,
        };
      }),
    );
  } finally {
    await Promise.all(workers.map((worker) => worker.kill()));
  }
}

/**
 * How many appended messages of the log hold each marker, not counting what a retraction appends again in
 * its own batch (an Agents pop rewrites the run it takes an item from: the items it keeps come back after
 * it, beside any new ones).
 */
function appendedMarkers(log: readonly StoredEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  let rewriting: string | undefined; // the recordedAt of the retraction whose batch is being read
  for (const event of log) {
    if (event.type === "messages.superseded" && event.data.mode === "retract") {
      rewriting = event.recordedAt;
      continue;
    }
    if (event.type !== "message.appended" || event.recordedAt !== rewriting) rewriting = undefined;
    if (event.type !== "message.appended") continue;
    for (const m of markersIn(messageText(event.data.message))) {
      if (rewriting === undefined || !counts.has(m)) counts.set(m, (counts.get(m) ?? 0) + 1);
    }
  }
  return counts;
}

for (const database of faultDatabases("manywriters")) {
  describe.skipIf(database.skip !== undefined)(`many writers on one session (${database.name})`, () => {
    let url: string;
    let runtime: Palimpsest;
    beforeAll(async () => {
      url = await database.create();
      runtime = new Palimpsest({ store: await openEventStore(url), counterFor: async () => cheapCounter });
    });
    afterAll(async () => {
      await runtime?.close();
      await database.dispose();
    });

    /** The session the run wrote (the SessionStore's: the one its key folds into), and its log. */
    async function written(surface: Surface, sessionId: string) {
      if (surface !== "session-store") return { id: sessionId, log: await runtime.store.readStream(sessionId) };
      const store = await openSessionStore({ url });
      try {
        const key = storeKey(sessionId);
        const [id] = await store.sessionIds(key);
        const entries = (await store.load(key)) ?? [];
        if (id === undefined) throw new Error("the key folded into no session");
        return { id, log: await runtime.store.readStream(id), entries };
      } finally {
        await store.close();
      }
    }

    const runs: { surface: Surface; processes: number; keyed: boolean }[] = SURFACES.flatMap((surface) =>
      PROCESSES.flatMap((processes) =>
        (surface === "session-store" ? [true] : [false, true]).map((keyed) => ({ surface, processes, keyed })),
      ),
    );

    it.each(runs)(
      `$processes processes × ${TURNS} turns through $surface (keyed: $keyed): nothing refused, lost or doubled; the view valid`,
      async ({ surface, processes, keyed }) => {
        const sessionId = `9a3e0000-0000-4000-8000-${String(runs.findIndex((r) => r.surface === surface && r.processes === processes && r.keyed === keyed)).padStart(12, "0")}`;
        if (surface !== "session-store") {
          await runtime.startSession({ sessionId, model: "gpt-4.1", contextWindow: 4_000 });
        }
        const results = await runWorkers(url, { surface, sessionId, keyed, turns: TURNS }, processes);
        const { id, log, entries } = await written(surface, sessionId);
        const figures: RunFigures = { turns: 0, errors: [], lost: [], doubled: [], invalid: [], ms: 0 };
        const appended = appendedMarkers(log);
        const session = await runtime.resume(id);
        for (const [w, result] of results.entries()) {
          figures.errors.push(...result.errors);
          figures.invalid.push(...result.problems.map((p) => `worker ${w}'s handle: ${p}`));
          figures.turns += result.acknowledged.length;
          figures.ms = Math.max(figures.ms, result.ms);
          if (result.acknowledged.length !== TURNS)
            figures.lost.push(`worker ${w} finished ${result.acknowledged.length} turns`);
          for (const n of result.acknowledged) {
            for (const kind of MARKED) {
              const m = marker(w, n, kind);
              const count = appended.get(m) ?? 0;
              if (count === 0) figures.lost.push(m);
              if (count > 1) figures.doubled.push(`${m} ×${count}`);
            }
          }
        }
        if (entries !== undefined) {
          const uuids = entries.map((e) => String(e.uuid));
          if (new Set(uuids).size !== uuids.length) figures.doubled.push("an entry loaded twice");
          if (uuids.length !== processes * TURNS * 4) figures.lost.push(`${uuids.length} entries loaded`);
        }
        const completed = log.flatMap((e) => (e.type === "turn.completed" ? [e.data.turnId] : []));
        if (surface === "session") {
          const ids = new Set(completed);
          for (const [w, result] of results.entries())
            for (const n of result.acknowledged) if (!ids.has(`w${w}t${n}`)) figures.lost.push(`turn w${w}t${n}`);
        }
        // Every turn completes once (an Agents history transaction names no turn; the SessionStore has none).
        const turnsCompleted = surface === "session-store" || (surface === "agents" && keyed) ? 0 : processes * TURNS;
        if (completed.length !== turnsCompleted) figures.lost.push(`${completed.length} turns completed`);
        figures.invalid.push(...viewProblems(session, log));
        const compactions = log.filter(
          (e) => e.type === "messages.superseded" && e.data.mode !== "retract" && e.data.mode !== "import",
        ).length;
        if (surface !== "session-store" && compactions === 0) figures.invalid.push("no compaction raced the turns");
        console.log(
          `many writers (${database.name}, ${surface}, ${processes} processes, keyed ${keyed}): ${JSON.stringify({
            turns: figures.turns,
            errors: figures.errors.length,
            lost: figures.lost.length,
            doubled: figures.doubled.length,
            invalid: figures.invalid.length,
            events: log.length,
            compactions,
            seconds: Math.round(figures.ms / 100) / 10,
          })}`,
        );
        expect(figures.errors).toEqual([]);
        expect(figures.lost).toEqual([]);
        expect(figures.doubled).toEqual([]);
        expect(figures.invalid).toEqual([]);
        expect(figures.turns).toBe(processes * TURNS);
      },
      600_000,
    );
  });
}
