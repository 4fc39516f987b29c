/**
 * Migration 0018 on a PostgreSQL database of several tenants, run as the documented owner role (no
 * superuser, no BYPASSRLS): row-level security is forced on the owner, yet the backfill indexes every
 * tenant's messages, not only those of the tenant the migrating store was opened for, and leaves the
 * security forced as it found it.
 */
import { randomUUID } from "node:crypto";
import { searchTerms } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import { afterAll, describe, expect, it } from "vitest";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import { runStatements, urlAs } from "../support/postgres-roles.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { undoCacheTokenColumns, undoSearchIndex } from "../support/store-database.ts";

const server = postgresServer();

describe.skipIf("skip" in server)("migration 0018 under forced row-level security (PostgreSQL)", () => {
  const owner = `palimpsest_owner_${randomUUID().slice(0, 8)}`;
  let database: ScratchDatabase | undefined;
  afterAll(async () => {
    if ("skip" in server) return;
    await database?.drop();
    await runStatements(server.url, `DROP ROLE IF EXISTS ${owner}`);
  });

  it("indexes every tenant's messages stored before it, whichever tenant the migrating store names", async () => {
    if ("skip" in server) return;
    database = await createScratchDatabase(server.url, "searchtenants");
    await runStatements(server.url, `CREATE ROLE ${owner} LOGIN NOSUPERUSER NOBYPASSRLS`);
    await runStatements(database.url, `GRANT CREATE, USAGE ON SCHEMA public TO ${owner}`);
    const url = urlAs(database.url, owner);
    const sessions: Record<string, string> = {};
    for (const tenant of ["acme", "globex"]) {
      const store = await openEventStore(url, { tenant });
      const sid = newSessionId(tenant);
      sessions[tenant] = sid;
      const messages = Array.from({ length: 12 }, (_, i) => userMessage(`m${i}`, `pelican report ${i} of ${tenant}`));
      await store.append(sid, [started(), ...messages], { expectedVersion: "no-stream" });
      if (tenant === "globex") {
        // Back to before 0018: no index, the steps not recorded.
        await undoSearchIndex(store);
        await undoCacheTokenColumns(store);
        await runStatements(database.url, "DELETE FROM kysely_migration WHERE name >= '0018_message_search'");
      }
      await store.close();
    }
    // The owner migrates, opening the store for acme.
    await (await openEventStore(url, { tenant: "acme" })).close();
    for (const tenant of ["acme", "globex"]) {
      const store = await openEventStore(url, { tenant });
      try {
        const found = await store.searchMessages({
          sessionIds: [sessions[tenant] as string],
          terms: searchTerms("pelican"),
          limit: 100,
        });
        expect(found, tenant).toHaveLength(12);
        // Still confined: the other tenant's session finds nothing.
        const other = sessions[tenant === "acme" ? "globex" : "acme"] as string;
        const leaked = await store.searchMessages({ sessionIds: [other], terms: searchTerms("pelican"), limit: 100 });
        expect(leaked, tenant).toEqual([]);
      } finally {
        await store.close();
      }
    }
    const forced = await runStatements<{ name: string; forced: boolean }>(
      database.url,
      "SELECT relname AS name, relforcerowsecurity AS forced FROM pg_class WHERE relname IN ('events', 'sessions') ORDER BY 1",
    );
    expect(forced).toEqual([
      { name: "events", forced: true },
      { name: "sessions", forced: true },
    ]);
  });
});
