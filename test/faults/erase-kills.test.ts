import { join } from "node:path";
import { openPalimpsest } from "@palimpsest/runtime";
import type { OpenedEventStore } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { populatedSession, uniqueMarker } from "../runtime/erase-fixtures.ts";
import { type DatabaseDump, dumpDatabase, occurrences, rowsMentioning } from "../support/database-scan.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { integrityProblems } from "./fault-checks.ts";
import { faultDatabases } from "./fault-databases.ts";
import { bundleWorker, Worker, type WorkerScript } from "./fault-process.ts";
import { faultCount, faultSeed } from "./fault-scale.ts";
import { searchIndexProblems } from "./search-index-check.ts";

const SESSIONS = 10;
const ROUNDS = faultCount(6, 6, 2);
const seed = faultSeed();

let script: WorkerScript;
beforeAll(async () => {
  script = await bundleWorker(join(import.meta.dirname, "erase-worker.ts"));
});
afterAll(() => script?.dispose());

for (const database of faultDatabases("erase")) {
  describe.skipIf(database.skip !== undefined)(`erasure under SIGKILL (${database.name}, seed ${seed})`, () => {
    afterAll(() => database.dispose());

    it("a child killed at a random point of an erase loop leaves each session wholly erased or untouched", async () => {
      const url = await database.create();
      const random = seededRandom(seed);
      const runtime = await openPalimpsest({ url });
      const store = runtime.store as OpenedEventStore;
      const sessions: { id: string; marker: string }[] = [];
      for (let i = 0; i < SESSIONS; i++) {
        const marker = uniqueMarker(`k${i}`);
        sessions.push({ id: (await populatedSession(runtime, marker)).id, marker });
      }
      await runtime.settled(); // the snapshots, written in the background
      const before = await dumpDatabase(store);
      let kills = 0;
      let eraseMs = 20; // until a worker reports one
      const victims = { erased: 0, untouched: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const remaining = [];
        for (const s of sessions) if ((await store.getSession(s.id))?.erasedAt === undefined) remaining.push(s);
        if (remaining.length === 0) break;
        const victim = remaining[Math.floor(random() * remaining.length)];
        const worker = new Worker(script);
        await worker.send({ url, ids: remaining.map((s) => s.id) });
        for (;;) {
          const message = await worker.next();
          if (message === undefined || message.t === "done") break;
          if (message.t === "erased" && typeof message.ms === "number") eraseMs = message.ms;
          if (message.t === "erasing" && message.id === victim?.id) {
            // The fault's timing, not a synchronization: a seeded delay of up to twice an erasure's
            // duration, so the kill lands before, inside or after the victim's transaction.
            await new Promise((resolve) => setTimeout(resolve, random() * 2 * eraseMs));
            await worker.kill();
            kills++;
            break;
          }
        }
        await worker.exited;
        if (victim !== undefined) {
          victims[(await store.getSession(victim.id))?.erasedAt === undefined ? "untouched" : "erased"]++;
        }
        expect(await checkSessions(store, sessions, before), `round ${round}, seed ${seed}`).toEqual([]);
        // The recall index: an erased session's messages gone from it, an untouched one's all there.
        const logs = new Map(
          await Promise.all(sessions.map(async (s) => [s.id, await store.readStream(s.id)] as const)),
        );
        expect(await searchIndexProblems(url, logs)).toEqual([]);
        expect(integrityProblems(url)).toEqual([]);
      }
      console.log(`erase kills (${database.name}, seed ${seed}): ${JSON.stringify({ kills, victims })}`);
      expect(kills).toBeGreaterThan(0);
      await runtime.close();
    });
  });
}

/** Problems with any session that is neither wholly erased nor exactly as it was. */
async function checkSessions(
  store: OpenedEventStore,
  sessions: readonly { id: string; marker: string }[],
  before: DatabaseDump,
): Promise<string[]> {
  const now = await dumpDatabase(store);
  const problems: string[] = [];
  for (const { id, marker } of sessions) {
    const summary = await store.getSession(id);
    if (summary?.erasedAt === undefined) {
      const same = JSON.stringify([...rowsMentioning(now, id)]) === JSON.stringify([...rowsMentioning(before, id)]);
      if (!same) problems.push(`${id}: not erased, but its rows changed`);
      continue;
    }
    const left = occurrences(now, marker);
    if (left.length > 0) problems.push(`${id}: erased, but its content is still in ${left[0]}`);
    const log = await store.readStream(id);
    if (log.at(-1)?.type !== "session.erased" || log.length !== summary.version) {
      problems.push(`${id}: erased, but its log does not end with the erasure`);
    }
  }
  return problems;
}
