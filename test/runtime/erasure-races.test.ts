/**
 * Content saved beside the log while an erasure of its session is in progress (PostgreSQL, where the two
 * run at once on separate connections): a snapshot, a pre-compaction candidate or a queued hand-off request
 * reads the session's row locked, so it waits for the erasure and then stores nothing (the request is
 * refused, `session-erased`). An unlocked check saw the row as last committed and stored content the
 * erasure had just deleted: each case fails on that code. (SQLite writes one at a time: a statement that
 * writes holds the write lock from before it reads.)
 */
import { openEventStore } from "@palimpsest/store";
import { createMemoryStore } from "@palimpsest/store/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import { withApplicationName } from "../faults/postgres-fault-writer.ts";
import { waitingForLock } from "../support/lock-wait.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { storeBackends } from "../support/store-backends.ts";
import { testCandidate } from "../support/test-candidate.ts";

const server = postgresServer();

/** What a session's content leaves beside its log, saved while an erasure of the session is in progress. */
const RACERS: {
  name: string;
  table: string;
  /** The table's column naming the session. */
  column?: string;
  save: (store: OpenedStore, sessionId: string) => Promise<unknown>;
  /** The save's outcome once the erasure committed: resolves, or is refused as the session's erasure. */
  refused?: true;
}[] = [
  {
    name: "a snapshot",
    table: "snapshots",
    save: (store, sessionId) =>
      store.saveSnapshot({ sessionId, seq: 2, format: 1, state: '"secret content"', checksum: "c" }),
  },
  {
    name: "a pre-compaction candidate",
    table: "precompaction_candidates",
    save: (store, sessionId) => store.saveCandidate(testCandidate(sessionId, { summary: "secret content" })),
  },
  {
    name: "a queued hand-off request",
    table: "handoffs",
    column: "source_session_id",
    save: (store, sessionId) =>
      store.handoffQueue.insert({
        sourceSessionId: sessionId,
        successorSessionId: `${sessionId}-next`,
        reason: "secret content",
      }),
    refused: true,
  },
];

type OpenedStore = Awaited<ReturnType<typeof openEventStore>>;

describe.skipIf("skip" in server)("content saved while its session is being erased (postgres)", () => {
  const APP = "palimpsest-erasure-race";
  let database: ScratchDatabase;
  let admin: pg.Client;
  beforeAll(async () => {
    if ("skip" in server) return;
    database = await createScratchDatabase(server.url, "eraserace");
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await database?.drop();
  });

  it.each(RACERS)("$name waits for the erasure holding the session's row, then stores nothing", async (racer) => {
    const store = await openEventStore(withApplicationName(database.url, APP));
    const eraser = new pg.Client({ connectionString: database.url });
    await eraser.connect();
    try {
      const sid = newSessionId("race");
      await store.append(sid, [started(), userMessage("m1", "secret content")], { expectedVersion: "no-stream" });
      // An erasure in progress, as the store's makes it: the session's row read FOR UPDATE and updated first,
      // the copies deleted.
      await eraser.query("BEGIN");
      await eraser.query("SELECT 1 FROM sessions WHERE session_id = $1 FOR UPDATE", [sid]);
      await eraser.query("UPDATE sessions SET erased_at = now() WHERE session_id = $1", [sid]);
      const column = racer.column ?? "session_id";
      await eraser.query(`DELETE FROM ${racer.table} WHERE ${column} = $1`, [sid]);
      const saving = racer.save(store, sid);
      // An unlocked check would see the row as last committed (not erased) and store the content at once.
      await Promise.race([
        waitingForLock(admin, new URL(database.url).pathname.slice(1), APP, racer.name),
        saving.then(() => {
          throw new Error(`${racer.name} was saved without waiting for the erasure`);
        }),
      ]);
      await eraser.query("COMMIT");
      if (racer.refused) await expect(saving).rejects.toMatchObject({ details: { rule: "session-erased" } });
      else await saving;
      const { rows } = await eraser.query(`SELECT count(*)::int AS n FROM ${racer.table} WHERE ${column} = $1`, [sid]);
      expect(rows[0].n).toBe(0);
    } finally {
      await eraser.end();
      await store.close();
    }
  });
});

/** A store to request hand-offs on: each engine's, and the memory store. */
const QUEUE_STORES = [
  ...storeBackends().map((b) => ({ name: b.name, skip: b.skip, make: b.make })),
  {
    name: "memory",
    skip: undefined,
    make: async () => ({ open: async () => createMemoryStore(), dispose: async () => {} }),
  },
];

for (const backend of QUEUE_STORES) {
  describe.skipIf(backend.skip !== undefined)(`a hand-off request of an erased session (${backend.name})`, () => {
    it("is refused, session-erased, and stores nothing", async () => {
      const made = await backend.make();
      try {
        const store = await made.open();
        const sid = newSessionId("erased-source");
        await store.append(sid, [started(), userMessage("m1", "secret content")], { expectedVersion: "no-stream" });
        await store.erase(sid);
        const refused = store.handoffQueue.insert({
          sourceSessionId: sid,
          successorSessionId: `${sid}-next`,
          reason: "secret",
        });
        await expect(refused).rejects.toMatchObject({ details: { rule: "session-erased" } });
        expect(await store.handoffQueue.list({ sourceSessionId: sid })).toEqual([]);
      } finally {
        await made.dispose();
      }
    });
  });
}
