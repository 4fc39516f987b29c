/**
 * An OpenAI Agents SDK session on PostgreSQL whose backend is terminated under a write (the connection
 * dropped while the write's insert waits for a lock another connection holds): the runtime reads the log,
 * finds the write not there and makes it again, and that attempt waits for the lock anew; once the lock is
 * released the call resolves and the items are stored once. A keyed history transaction made again under
 * its operation id is a no-op.
 */
import type { AgentInputItem } from "@openai/agents-core";
import { openAgentsSession } from "@palimpsest/openai-agents";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";
import { adapterTurn } from "./adapter-operations.ts";
import { terminateBackends, withApplicationName } from "./postgres-fault-writer.ts";

const server = postgresServer();

const WRITES = [
  { name: "addItems", keyed: false },
  { name: "applyHistoryTransaction", keyed: true },
] as const;

describe.skipIf("skip" in server)("an agents session on PostgreSQL: a backend terminated under a write", () => {
  for (const [index, write] of WRITES.entries()) {
    it(`${write.name}: made again by the runtime once the connection dropped, the items stored once`, async () => {
      if ("skip" in server) return;
      const database = await createScratchDatabase(server.url, "agentsterm");
      const name = new URL(database.url).pathname.slice(1);
      const app = `palimpsest-agents-terminated-${index}`;
      const admin = new pg.Client({ connectionString: server.url });
      const locker = new pg.Client({ connectionString: database.url });
      await admin.connect();
      const session = await openAgentsSession({ url: withApplicationName(database.url, app), model: "gpt-4o" });
      try {
        await locker.connect();
        await session.addItems(adapterTurn(1) as AgentInputItem[]);
        const turn = adapterTurn(2) as AgentInputItem[];
        const run = () =>
          write.keyed
            ? session.applyHistoryTransaction({
                operationId: "op-2",
                transaction: { type: "append_items", items: turn },
              })
            : session.addItems(turn);
        await locker.query("BEGIN");
        // EXCLUSIVE lets reads through (the store makes a read cut by a dropped connection again itself) and
        // holds the write's insert: the write itself is cut.
        await locker.query("LOCK TABLE events IN EXCLUSIVE MODE");
        const writing = run().then(
          () => "resolved",
          (error: unknown) => error,
        );
        // The server says when the write is waiting for the lock, and on which backend (polled: there is no
        // event to wait on); `not` is a backend terminated before.
        const waitingForLock = async (not?: number) => {
          for (const deadline = Date.now() + 10_000; ; ) {
            const { rows } = await admin.query<{ pid: number }>(
              "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND wait_event_type = 'Lock' AND pid <> $3",
              [name, app, not ?? 0],
            );
            if (rows[0] !== undefined) return rows[0].pid;
            if (Date.now() > deadline) {
              const outcome =
                not === undefined ? "" : `; it ended: ${String(await Promise.race([writing, "pending"]))}`;
              throw new Error(`${write.name} never waited for the lock${not === undefined ? "" : " again"}${outcome}`);
            }
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        };
        const cut = await waitingForLock();
        expect(await terminateBackends(admin, name, app)).toBeGreaterThan(0);
        // A dropped connection is the runtime's to retry: the log shows nothing landed, its next attempt waits anew.
        await waitingForLock(cut);
        await locker.query("ROLLBACK");
        expect(await writing).toBe("resolved");
        expect(await session.getItems()).toEqual([...adapterTurn(1), ...adapterTurn(2)]);
        if (write.keyed) await run(); // the same operation again: a no-op
        const reopened = await openAgentsSession({ url: database.url, sessionId: session.session.id });
        expect(await reopened.getItems()).toEqual([...adapterTurn(1), ...adapterTurn(2)]);
        await reopened.close();
      } finally {
        await session.close();
        await locker.end().catch(() => undefined);
        await admin.end();
        await database.drop();
      }
    });
  }
});
