import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { openEventStore, Palimpsest } from "@palimpsest/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { seededRandom } from "../support/seeded-random.ts";
import { faultCount, faultSeed } from "./fault-scale.ts";
import {
  startFaultWriter,
  terminateBackends,
  WRITER_APP,
  type WriterMessage,
  withApplicationName,
  writerOutcome,
} from "./postgres-fault-writer.ts";

const server = postgresServer();

/** Chance that an operation's start gets a termination, and the longest delay after it (ms). */
const INJECT = {
  append: { chance: 0.4, maxDelayMs: 4 },
  read: { chance: 0.2, maxDelayMs: 2 },
  compact: { chance: 0.9, maxDelayMs: 25 },
} as const;

describe.skipIf("skip" in server)("PostgreSQL faults: the writer's backends terminated", () => {
  let database: ScratchDatabase;
  let admin: pg.Client;
  let runtime: Palimpsest;
  beforeAll(async () => {
    if ("skip" in server) return;
    database = await createScratchDatabase(server.url, "pgterm");
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    runtime = new Palimpsest({ store: await openEventStore(database.url), counterFor: createTokenCounter });
  });
  afterAll(async () => {
    await runtime?.store.close();
    await admin?.end();
    await database?.drop();
  });

  it("mid-append, mid-read and mid-compaction: only retryable STORAGE errors, no crash, nothing lost or doubled", async () => {
    const seed = faultSeed();
    const target = faultCount(40, 400);
    const random = seededRandom(seed);
    const session = await runtime.startSession({ contextWindow: 4_000, profile: "local" });
    const name = new URL(database.url).pathname.slice(1);
    const writer = startFaultWriter(withApplicationName(database.url, WRITER_APP), session.id);
    const injected = { append: 0, read: 0, compact: 0 };
    let total = 0;
    let scheduled = 0;
    writer.onMessage((message) => {
      const m = message as WriterMessage;
      if (!("begin" in m) || scheduled >= target) return;
      const { chance, maxDelayMs } = INJECT[m.begin];
      if (random() >= chance) return;
      scheduled++;
      setTimeout(async () => {
        const n = await terminateBackends(admin, name, WRITER_APP);
        if (n > 0) {
          injected[m.begin]++;
          total++;
        } else scheduled--; // it had no connection open at that moment: try again at a later operation
        if (total >= target) writer.endInput();
      }, random() * maxDelayMs);
    });
    const outcome = await writerOutcome(writer, runtime, session.id);
    const figures = { seed, target, injected, ...outcome, stderr: outcome.stderr.slice(0, 2000) };
    console.log(`postgres terminations: ${JSON.stringify(figures, null, 1)}`);
    const context = `seed ${seed} (replay with PALIMPSEST_FAULT_SEED=${seed})`;
    expect(outcome.exit, `${context}: the writer died\n${outcome.stderr}`).toEqual({ code: 0, signal: null });
    expect(outcome.fatal, context).toEqual([]);
    expect(outcome.unexpected, context).toBe(0);
    expect(total, context).toBeGreaterThanOrEqual(target);
    expect(
      Object.values(outcome.failures).reduce((a, b) => a + b, 0),
      context,
    ).toBeGreaterThan(0);
    expect(outcome.lost, context).toEqual([]);
    expect(outcome.duplicated, context).toEqual([]);
    expect(outcome.compactionsInLog, context).toBe(outcome.compactionsAcked);
    expect(outcome.invalid, context).toEqual([]);
    expect(outcome.resumeMatches, context).toBe(true);
  });
});
