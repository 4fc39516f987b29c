/**
 * A session's append on PostgreSQL chosen as a deadlock's victim: the server rolls its statement back
 * (40P01), so nothing of it was written, and the store writes the same batch again; the caller sees no error
 * and the log holds the batch once. The deadlock is made for real: another connection holds the session's
 * row, the append waits for it holding its tables, then the other connection asks for the events table.
 */
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { waitingForLock } from "../support/lock-wait.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";
import { withApplicationName } from "./postgres-fault-writer.ts";

const server = postgresServer();

describe.skipIf("skip" in server)("PostgreSQL faults: an append chosen as a deadlock's victim", () => {
  it("is written again by the store: no error reaches the caller, the batch is in the log once", async () => {
    if ("skip" in server) return;
    const database = await createScratchDatabase(server.url, "pgdeadlock");
    const name = new URL(database.url).pathname.slice(1);
    const app = "palimpsest-deadlock-victim";
    const runtime = new Palimpsest({
      store: await openEventStore(withApplicationName(database.url, app)),
      counterFor: createTokenCounter,
    });
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      const session = await runtime.startSession({ contextWindow: 4_000, profile: "local" });
      await session.append(exchange(0));
      await locker.query("BEGIN");
      await locker.query("SELECT 1 FROM sessions WHERE session_id = $1 FOR UPDATE", [session.id]);
      const appended = session.append(exchange(1));
      // The append waits for the session's row.
      await waitingForLock(locker, name, app, "the append");
      // The append holds the events table while it waits: asking for it closes the cycle. The append's wait
      // began first, so its deadlock check runs first and it is the one rolled back.
      await locker.query("LOCK TABLE events IN SHARE MODE");
      await locker.query("COMMIT");
      await appended;
      const log = await runtime.store.readStream(session.id);
      expect(log.flatMap((e) => (e.type === "message.appended" ? [e.data.message.id] : []))).toEqual(
        [0, 1].flatMap((n) => exchange(n).map((m) => m.id)),
      );
    } finally {
      await locker.end();
      await runtime.store.close();
      await database.drop();
    }
  });
});
