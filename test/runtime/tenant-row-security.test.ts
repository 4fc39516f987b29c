/**
 * PostgreSQL enforces tenants itself (migration 0016's row-level security): the store's application
 * connects as a role that neither owns the tables nor bypasses row security, and names its tenant on
 * every connection. Two such roles here, each serving a tenant through the store; then raw SQL as each
 * role, as a query that forgot its tenant would run: it sees, changes and adds only its tenant's rows.
 */
import { randomUUID } from "node:crypto";
import { openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels, openEventStore } from "@palimpsest/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TENANT_TABLES } from "../../packages/store/src/engine/tenant-scope.ts";
import { APP_GRANTS } from "../support/app-role-grants.ts";
import { urlAs as databaseUrlAs, runStatements } from "../support/postgres-roles.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";

const server = postgresServer();
const suite = "skip" in server ? describe.skip : describe;

suite("tenants under PostgreSQL row-level security (two application roles)", () => {
  let database: ScratchDatabase;
  const suffix = randomUUID().slice(0, 8);
  const roles = { acme: `palimpsest_app_a_${suffix}`, globex: `palimpsest_app_b_${suffix}` };
  const runtimes: Palimpsest[] = [];
  const clients: pg.Client[] = [];

  /** The database's URL for `role`, naming `tenant` on its connections when given (as the store does). */
  const urlAs = (role: string, tenant?: string) => databaseUrlAs(database.url, role, tenant);
  const admin = (statements: string[]) => runStatements(database.url, ...statements);
  const connectAs = async (role: string, tenant?: string) => {
    const client = new pg.Client({ connectionString: urlAs(role, tenant) });
    clients.push(client);
    await client.connect();
    return client;
  };

  beforeAll(async () => {
    if ("skip" in server) return;
    database = await createScratchDatabase(server.url, "tenant_rls");
    await (await openEventStore(database.url)).close(); // the owner migrates
    for (const role of Object.values(roles)) {
      await admin([
        `CREATE ROLE ${role} LOGIN NOSUPERUSER NOBYPASSRLS`,
        ...APP_GRANTS.map((grant) => grant.replace("{role}", role)),
      ]);
    }
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => {})));
    await Promise.all(runtimes.map((r) => r.close()));
    await database?.drop();
    for (const role of Object.values(roles)) {
      const client = new pg.Client({ connectionString: "skip" in server ? "" : server.url });
      await client.connect();
      await client.query(`DROP ROLE IF EXISTS ${role}`).finally(() => client.end());
    }
  });

  it("gives each role's store its tenant's sessions, and raw SQL as each role its tenant's rows only", async () => {
    const acme = await openPalimpsest({ url: urlAs(roles.acme), tenant: "acme", snapshotEvery: 1 });
    const globex = await openPalimpsest({ url: urlAs(roles.globex), tenant: "globex" });
    runtimes.push(acme, globex);
    const shared = `shared-${suffix}`;
    const ours = await acme.startSession({ sessionId: shared });
    await ours.append({ role: "user", content: "acme's words" }, { idempotencyKey: "k" });
    const theirs = await globex.startSession({ sessionId: shared });
    await theirs.append({ role: "user", content: "globex's words" });
    await globex.fork(shared, { toSessionId: `fork-${suffix}` });
    await globex.handoffs.request(theirs, { successorSessionId: `next-${suffix}` });
    for (const runtime of [acme, globex]) await new AuditReadModels(runtime.store).catchUp();

    expect((await acme.resume(shared)).view().messages.map((m) => m.content[0])).toEqual([
      { type: "text", text: "acme's words" },
    ]);
    expect((await globex.resume(shared)).view().messages.map((m) => m.content[0])).toEqual([
      { type: "text", text: "globex's words" },
    ]);
    expect((await acme.store.listSessions()).map((s) => s.sessionId)).toEqual([shared]);
    expect((await acme.store.readAll()).events.every((e) => e.tenantId === "acme")).toBe(true);
    const acmeEvents = (await acme.store.readAll()).events.length;
    const globexEvents = (await globex.store.readAll()).events.length;

    // Raw SQL as each role: only its tenant's rows, in every table the store created.
    for (const [tenant, role] of Object.entries(roles)) {
      const client = await connectAs(role, tenant);
      for (const table of TENANT_TABLES) {
        const { rows } = await client.query<{ tenant_id: string }>(`SELECT DISTINCT tenant_id FROM ${table}`);
        expect(
          rows.every((r) => r.tenant_id === tenant),
          `${role} reading ${table}`,
        ).toBe(true);
      }
      const events = await client.query<{ n: string }>("SELECT count(*) AS n FROM events");
      expect(Number(events.rows[0]?.n)).toBe(tenant === "acme" ? acmeEvents : globexEvents);
      // Writing another tenant's rows: updates find none, inserts are refused.
      const other = tenant === "acme" ? "globex" : "acme";
      const updated = await client.query("UPDATE sessions SET version = 99 WHERE tenant_id = $1", [other]);
      expect(updated.rowCount).toBe(0);
      await expect(
        client.query("INSERT INTO log_keys (session_id, tenant_id, key) VALUES ('x', $1, 'k')", [other]),
      ).rejects.toThrow(/row-level security/);
    }

    // A connection naming no tenant sees no row at all.
    const unnamed = await connectAs(roles.acme);
    for (const table of TENANT_TABLES) {
      const { rows } = await unnamed.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
      expect(Number(rows[0]?.n), table).toBe(0);
    }
  });

  it("leaves the superuser (who bypasses row security) every tenant's rows, for operators and migrations", async () => {
    const client = new pg.Client({ connectionString: database.url });
    clients.push(client);
    await client.connect();
    const { rows } = await client.query<{ tenant_id: string }>(
      "SELECT DISTINCT tenant_id FROM sessions ORDER BY tenant_id",
    );
    expect(rows.map((r) => r.tenant_id)).toEqual(["acme", "globex"]);
  });
});
