import { openEventStore } from "@palimpsest/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import type { TestStore } from "../support/store-backends.ts";
import { newSessionId } from "./fixtures.ts";

const server = postgresServer();

/** Inserts a session's first event in the client's open transaction; returns its position. */
async function insertStarted(client: pg.Client, sessionId: string): Promise<number> {
  const { rows } = await client.query<{ position: string }>(
    `INSERT INTO events (event_id, session_id, seq, type, schema_version, occurred_at, tenant_id, data)
     VALUES (gen_random_uuid(), $1, 1, 'session.started', 1, now(), 'default', $2) RETURNING position`,
    [sessionId, JSON.stringify({ encoding: "o200k_base" })],
  );
  return Number(rows[0]?.position);
}

describe.skipIf("skip" in server)("the global cursor on PostgreSQL", () => {
  let database: ScratchDatabase;
  let store: TestStore;
  const clients: pg.Client[] = [];
  const client = async () => {
    const c = new pg.Client({ connectionString: database.url });
    clients.push(c);
    await c.connect();
    return c;
  };

  beforeAll(async () => {
    database = await createScratchDatabase("url" in server ? server.url : "", "cursor");
    store = await openEventStore(database.url);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end()));
    await store?.close();
    await database?.drop();
  });

  it("never skips a commit whose xid is later but whose position is earlier than one already read", async () => {
    const [first, second] = [await client(), await client()];
    const early = newSessionId("xid-early");
    const late = newSessionId("xid-late");
    await first.query("BEGIN");
    await first.query("SELECT pg_current_xact_id()"); // `first` takes the older xid ...
    await second.query("BEGIN");
    const latePosition = await insertStarted(second, late); // ... `second` the newer one, and a position first
    const earlyPosition = await insertStarted(first, early);
    expect(earlyPosition).toBeGreaterThan(latePosition);
    await first.query("COMMIT");

    const ours = (events: { sessionId: string }[]) =>
      events.filter((e) => e.sessionId === early || e.sessionId === late).map((e) => e.sessionId);
    // Other test files' open transactions can hold the barrier back for a moment: wait until `early` shows.
    const page = await vi.waitFor(async () => {
      const read = await store.readAll();
      expect(ours(read.events)).toEqual([early]);
      return read;
    });
    await second.query("COMMIT");
    await vi.waitFor(async () => {
      expect(ours((await store.readAll({ after: page.checkpoint })).events)).toEqual([late]);
    });
  });
});
