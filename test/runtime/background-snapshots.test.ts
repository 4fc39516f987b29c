/**
 * A session's snapshot is a cache: the append that makes it due does not wait for it. It is written in the
 * background, from the state as it is then; the runtime's `settled` and `close` wait for it. On PostgreSQL,
 * a snapshot or a pre-compaction candidate saved while an erasure of its session is in progress waits for
 * the erasure and stores nothing.
 */
import type { Snapshot } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import { withApplicationName } from "../faults/postgres-fault-writer.ts";
import { waitingForLock } from "../support/lock-wait.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";

type Store = Palimpsest["store"];

/** `store` with its saveSnapshot held until `open()`: `entered` resolves when a save is called; `saved`, when it is done. */
function gatedSnapshots(store: Store) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let entered!: (snapshot: Snapshot) => void;
  const called = new Promise<Snapshot>((resolve) => {
    entered = resolve;
  });
  const order: string[] = [];
  const gated = new Proxy(store, {
    get(target, property) {
      if (property === "saveSnapshot") {
        return async (snapshot: Snapshot) => {
          entered(snapshot);
          await gate;
          await target.saveSnapshot(snapshot);
          order.push("saved");
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: gated, open, called, order };
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`background snapshots (${backend.name})`, () => {
    beforeAll(() => backend.setup());
    afterAll(() => backend.dispose());

    it("an append returns before the snapshot it made due is written; settled waits for it", async () => {
      const base = await backend.open();
      const gated = gatedSnapshots(base.store);
      const runtime = new Palimpsest({ store: gated.store, counterFor: createTokenCounter, snapshotEvery: 2 });
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append([
        { id: "u1", role: "user", content: "first" },
        { id: "a1", role: "assistant", content: "reply" },
      ]);
      // The append has returned; the snapshot starts after it, held at the gate: nothing stored yet.
      const snapshot = await gated.called;
      expect(snapshot.seq).toBe(session.state.lastSeq);
      expect(await base.store.loadSnapshot(session.id)).toBeUndefined();

      const settled = runtime.settled().then(() => gated.order.push("settled"));
      gated.open();
      await settled;
      expect(gated.order).toEqual(["saved", "settled"]);
      expect((await base.store.loadSnapshot(session.id))?.seq).toBe(session.state.lastSeq);
    });

    it("close waits for a snapshot still being written, then closes the store", async () => {
      const base = await backend.open();
      const gated = gatedSnapshots(base.store);
      const runtime = new Palimpsest({ store: gated.store, counterFor: createTokenCounter, snapshotEvery: 2 });
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append([
        { id: "u1", role: "user", content: "kept in the snapshot" },
        { id: "a1", role: "assistant", content: "reply" },
      ]);
      await gated.called;
      const closing = runtime.close().then(() => gated.order.push("closed"));
      gated.open();
      await closing;
      expect(gated.order).toEqual(["saved", "closed"]);
      const reader = await backend.open();
      const stored = await reader.store.loadSnapshot(session.id);
      expect(stored?.seq).toBe(session.state.lastSeq);
      expect(stored?.state).toContain("kept in the snapshot");
    });

    it("writes one session's snapshots in order, each from the state as it was when it ran", async () => {
      const runtime = await backend.open({ snapshotEvery: 1 });
      const session = await runtime.startSession({ model: "gpt-4o" });
      for (let n = 0; n < 5; n++) await session.append({ id: `u${n}`, role: "user", content: `message ${n}` });
      await runtime.settled();
      const stored = await runtime.store.loadSnapshot(session.id);
      expect(stored?.seq).toBe(session.state.lastSeq);
      expect(stored?.state).toContain("message 4");
    });
  });
}

const server = postgresServer();

/** What a session's content leaves beside its log, saved while an erasure of the session is in progress. */
const RACERS: { name: string; table: string; save: (store: OpenedStore, sessionId: string) => Promise<unknown> }[] = [
  {
    name: "a snapshot",
    table: "snapshots",
    save: (store, sessionId) =>
      store.saveSnapshot({ sessionId, seq: 2, format: 1, state: '"secret content"', checksum: "c" }),
  },
  {
    name: "a pre-compaction candidate",
    table: "precompaction_candidates",
    save: (store, sessionId) =>
      store.saveCandidate({
        key: {
          sessionId,
          lastMessageId: "m1",
          prefixHash: "a".repeat(64),
          systemPromptHash: "b".repeat(64),
          summarizerModel: "offline-extractive",
          promptVersion: "v1",
        },
        targets: ["m1"],
        summary: "secret content",
        basisViewVersion: 0,
        createdAt: Date.now(),
        summaryMs: 1,
      }),
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
      // An erasure in progress, as the store's makes it: the session's row updated first, the copies deleted.
      await eraser.query("BEGIN");
      await eraser.query("UPDATE sessions SET erased_at = now() WHERE session_id = $1", [sid]);
      await eraser.query(`DELETE FROM ${racer.table} WHERE session_id = $1`, [sid]);
      const saving = racer.save(store, sid);
      // An unlocked check would see the row as last committed (not erased) and store the content at once.
      await Promise.race([
        waitingForLock(admin, new URL(database.url).pathname.slice(1), APP, racer.name),
        saving.then(() => {
          throw new Error(`${racer.name} was saved without waiting for the erasure`);
        }),
      ]);
      await eraser.query("COMMIT");
      await saving;
      const { rows } = await eraser.query(`SELECT count(*)::int AS n FROM ${racer.table} WHERE session_id = $1`, [sid]);
      expect(rows[0].n).toBe(0);
    } finally {
      await eraser.end();
      await store.close();
    }
  });
});
