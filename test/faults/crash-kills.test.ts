import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { testKeyring } from "../support/test-keyring.ts";
import { CrashDriver } from "./crash-driver.ts";
import { faultDatabases } from "./fault-databases.ts";
import { bundleWorker, type WorkerScript } from "./fault-process.ts";
import { faultCount, faultProject, faultSeed } from "./fault-scale.ts";

const KILLS = faultCount(200, 2_000);
/** Kills on an encrypted store: fewer, as its write paths are the plain ones with sealing around them. */
const ENCRYPTED_KILLS = faultCount(60, 600);
const seed = faultSeed();
const replay = `replay with PALIMPSEST_FAULT_SEED=${seed} node_modules/.bin/vitest run --project ${faultProject()} test/faults/crash-kills.test.ts`;

let script: WorkerScript;
beforeAll(async () => {
  script = await bundleWorker(join(import.meta.dirname, "crash-child.ts"));
});
afterAll(() => script?.dispose());

/** Runs `driver`'s children until `kills` kills landed mid-work, then one to the end; fails on any problem. */
async function killRun(driver: CrashDriver, kills: number, where: string): Promise<void> {
  const started = performance.now();
  try {
    // A child that never reached its hook is killed idle: not a kill point, so run until there are `kills`.
    for (let k = 0; driver.killPoints < kills && k < 2 * kills; k++) {
      const plan = driver.nextPlan();
      const outcome = await driver.killPoint(plan, { audit: k % 10 === 9 });
      if (outcome.problems.length > 0) {
        throw new Error(
          `child ${k + 1} (${JSON.stringify(plan)}, killed at ${outcome.at}) on ${where}, seed ${seed}: ${replay}\n${outcome.problems.join("\n")}`,
        );
      }
    }
    const last = await driver.killPoint({ kind: "finish" }, { audit: true });
    expect(last.problems, `the last child finished the step cut short; ${replay}`).toEqual([]);
  } finally {
    await driver.dispose();
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    console.log(`crash figures (${where}, seed ${seed}): ${JSON.stringify({ ...driver.figures, seconds })}`);
  }
  const figures = driver.figures;
  expect(driver.killPoints, "kills that landed mid-work").toBeGreaterThanOrEqual(kills);
  expect([figures.lost, figures.duplicated, figures.invalid]).toEqual([0, 0, 0]);
}

for (const database of faultDatabases("crash")) {
  describe.skipIf(database.skip !== undefined)(
    `crashes: SIGKILL at seeded points (${database.name}, seed ${seed})`,
    () => {
      let url: string;
      beforeAll(async () => {
        url = await database.create();
      });
      afterAll(() => database.dispose());

      it(`${KILLS} kills while appending, compacting, summarizing, committing, handing off, projecting and snapshotting lose, double and break nothing`, async () => {
        await killRun(new CrashDriver(url, script, seed, `crash${seed}`), KILLS, database.name);
      }, 1_800_000); // about 80 s on an idle two-core machine; the bound is for a loaded one

      // Defect 3 (issue #10, fixed on another branch): un-mark `fails` once it is merged.
      it("a child killed after an append committed, before it heard back, retries it with the same key and gets the original result", async () => {
        const driver = new CrashDriver(url, script, seed, `retry${seed}`);
        onTestFinished(() => driver.dispose());
        for (let k = 0; k < 10 && driver.figures.killsAt["committed:append"] === undefined; k++) {
          const outcome = await driver.killPoint(
            { kind: "hook", name: "committed:append", nth: 1, park: true },
            { audit: false },
          );
          expect(outcome.problems).toEqual([]);
        }
        expect(driver.figures.killsAt["committed:append"]).toBe(1);
        const retry = await driver.killPoint({ kind: "finish" }, { audit: false });
        expect(retry.problems).toEqual([]);
        expect(driver.figures.retries).toEqual({ replayed: 1 });
      }, 120_000);

      // Last: the plain drivers above check every session of the database, which they could not read after it.
      it(`${ENCRYPTED_KILLS} kills of the same work on a store encrypting with a local keyring (events, snapshots, hand-off texts sealed) lose, double and break nothing`, async () => {
        const keys = await testKeyring();
        onTestFinished(() => keys.dispose());
        const driver = new CrashDriver(url, script, seed, `sealed${seed}`, keys);
        await killRun(driver, ENCRYPTED_KILLS, `${database.name}, encrypted`);
      }, 900_000);
    },
  );
}
