/**
 * An OpenAI Agents SDK session on PostgreSQL whose backend is terminated under a write (the connection
 * dropped while the write's insert waits for a lock another connection holds): a retryable STORAGE error, nothing
 * stored, and a retry stores the items once; a keyed history transaction retried under its operation id
 * lands once too.
 */
import type { AgentInputItem } from "@openai/agents-core";
import { StorageError } from "@palimpsest/core";
import { openAgentsSession } from "@palimpsest/openai-agents";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";
import { adapterTurn } from "./adapter-operations.ts";
import { retriedWhileRetryable, terminateBackends, withApplicationName } from "./postgres-fault-writer.ts";

const server = postgresServer();

const WRITES = [
  { name: "addItems", keyed: false },
  { name: "applyHistoryTransaction", keyed: true },
] as const;

describe.skipIf("skip" in server)("an agents session on PostgreSQL: a backend terminated under a write", () => {
  for (const [index, write] of WRITES.entries()) {
    it(`${write.name}: a retryable STORAGE error, nothing stored, and the retry stores the items once`, async () => {
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
        const failure = run().catch((error: unknown) => error);
        // The server says when the write is waiting for the lock (polled: there is no event to wait on).
        for (let waited = 0; ; waited++) {
          const { rows } = await admin.query(
            "SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND wait_event_type = 'Lock'",
            [name, app],
          );
          if (rows.length > 0) break;
          if (waited > 4_500) throw new Error(`${write.name} never waited for the lock`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        expect(await terminateBackends(admin, name, app)).toBeGreaterThan(0);
        const error = await failure;
        expect(error, String(error)).toBeInstanceOf(StorageError);
        expect((error as StorageError).details.retryable).toBe(true);
        await locker.query("ROLLBACK");
        expect(await retriedWhileRetryable(() => session.getItems())).toEqual(adapterTurn(1));
        await retriedWhileRetryable(run);
        if (write.keyed) await retriedWhileRetryable(run); // the same operation again: a no-op
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
