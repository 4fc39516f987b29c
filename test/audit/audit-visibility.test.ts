import { AuditReadModels } from "@palimpsest/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSessionId, started } from "../contract/fixtures.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { postgresBackend, type StoreBackend, type TestStore } from "../support/store-backends.ts";

const server = postgresServer();

describe.skipIf("skip" in server)("audit catch-up and PostgreSQL's visibility barrier", () => {
  let backend: StoreBackend;
  let store: TestStore;
  beforeAll(async () => {
    backend = await postgresBackend((server as { url: string }).url);
    store = await backend.open();
  });
  afterAll(() => backend.dispose());

  it("waits for a commit hidden behind an older open transaction, and says when it waited in vain", async () => {
    const audit = new AuditReadModels(store, { catchUpOnRead: false });
    await audit.catchUp();
    const held = await backend.holdOpenAppend?.(newSessionId("held"));
    if (held === undefined) throw new Error("postgres backend holds appends");
    const sid = newSessionId("hidden");
    await store.append(sid, [started()], { expectedVersion: "no-stream" }); // committed, but behind the barrier
    const blocked = await audit.catchUp({ visibilityWaitMs: 50 });
    expect(blocked).toMatchObject({ complete: false, events: 0 });
    const probe = new pg.Client({ connectionString: backend.url });
    await probe.connect();
    const since = (await probe.query<{ now: string }>("SELECT clock_timestamp()::text AS now")).rows[0]?.now;
    const waiting = audit.catchUp({ visibilityWaitMs: 10_000 });
    await untilPolled(probe, since ?? "").finally(() => probe.end()); // it waits on the barrier: commit now
    await held.commit();
    const done = await waiting;
    expect(done.complete).toBe(true);
    expect(done.events).toBe(2);
    expect((await audit.lineage(sid)).session.sessionId).toBe(sid);
  });
});

/**
 * Resolves once a connection to `url`'s database other than `probe` has started a visibility poll (the
 * barrier check awaitVisible repeats while a commit is hidden) since `since`, the server's clock: only a
 * wait that found a hidden commit polls. Polled: the server has no event to wait on.
 */
async function untilPolled(probe: pg.Client, since: string): Promise<void> {
  const poll = "pg_snapshot_xmin(pg_current_snapshot()) > $1::xid8 AS passed";
  for (const deadline = Date.now() + 10_000; ; ) {
    const { rows } = await probe.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND query_start > $1::timestamptz AND position($2 in query) > 0`,
      [since, poll],
    );
    if (rows.length > 0) return;
    if (Date.now() > deadline) throw new Error("the catch-up never polled the visibility barrier");
  }
}
