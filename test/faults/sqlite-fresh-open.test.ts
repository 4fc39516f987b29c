import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEventStore } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase } from "../support/scratch-postgres.ts";
import { faultCount } from "./fault-scale.ts";
import { forkSqliteProcess, type ProcessReply, type SqliteProcess } from "./sqlite-process.ts";

/** Processes opening one fresh file at once, and how many rounds of that (a fresh file each). */
const PROCESSES = 8;
const ROUNDS = faultCount(10, 100);

describe("SQLite: processes opening a fresh file at once", () => {
  let dir: string;
  let children: SqliteProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "palimpsest-fresh-open-"));
    children = await Promise.all(Array.from({ length: PROCESSES }, () => forkSqliteProcess()));
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await rm(dir, { recursive: true, force: true });
  });

  it(`every open of ${PROCESSES} processes succeeds, ${ROUNDS} fresh files in a row`, async () => {
    const failed: ProcessReply[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const url = join(dir, `round-${round}.db`);
      // The barrier: every child is idle on its IPC channel; one message each is the go.
      const replies = await Promise.all(children.map((c) => c.request({ op: "open", url })));
      failed.push(...replies.filter((r) => !r.ok));
      const store = await openEventStore(url); // the schema is whole: a store opens and reads it
      expect(await store.listSessions()).toEqual([]);
      await store.close();
    }
    expect(failed, `${failed.length} of ${PROCESSES * ROUNDS} opens failed`).toEqual([]);
  });
});

const baseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(baseUrl === undefined)("PostgreSQL: stores opening a fresh database at once", () => {
  it(`${PROCESSES} concurrent opens all migrate or find the schema migrated`, async () => {
    for (let round = 0; round < Math.ceil(ROUNDS / 5); round++) {
      const database = await createScratchDatabase(baseUrl ?? "", "fresh_open");
      try {
        const opened = await Promise.allSettled(Array.from({ length: PROCESSES }, () => openEventStore(database.url)));
        await Promise.all(opened.map((o) => (o.status === "fulfilled" ? o.value.close() : undefined)));
        expect(opened.filter((o) => o.status === "rejected")).toEqual([]);
      } finally {
        await database.drop();
      }
    }
  });
});
