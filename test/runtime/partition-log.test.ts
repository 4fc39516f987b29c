/**
 * partitionLog on PostgreSQL: a populated log of two tenants, owned by a role that is no superuser (so row
 * security binds the owner too) and served by an application role without BYPASSRLS, divided into hash
 * partitions by session. Every row is kept, the application goes on (resume, append, positions after the
 * old ones), each tenant still sees only its rows, and the purge rewrites partition by partition. Run
 * again it changes nothing; another process's appends go on through it; bad input, a role that does not
 * own the tables, a conversion whose backend is terminated mid-copy and one whose process is SIGKILLed
 * mid-copy change nothing.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels, openEventStore, PARTITIONED_TABLES, partitionLog } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TENANT_TABLES } from "../../packages/store/src/engine/tenant-scope.ts";
import { APP_GRANTS } from "../support/app-role-grants.ts";
import { startScript } from "../support/child-script.ts";
import { scanDatabaseFiles } from "../support/file-scan.ts";
import { runStatements, urlAs } from "../support/postgres-roles.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { rejection } from "../support/rejection.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { populatedSession, uniqueMarker } from "./erase-fixtures.ts";

const server = postgresServer();
const suite = "skip" in server ? describe.skip : describe;

/** Waits until `predicate` holds, polling; fails after `timeoutMs`. */
async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const start = performance.now();
  while (!(await predicate())) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

suite("partitionLog (PostgreSQL)", () => {
  const suffix = randomUUID().slice(0, 8);
  const roles = { owner: `palimpsest_owner_${suffix}`, app: `palimpsest_app_${suffix}` };
  const databases: ScratchDatabase[] = [];
  const runtimes: Palimpsest[] = [];

  /** A fresh database migrated by the owner role, the application role granted as the docs say. */
  const ownedDatabase = async (label: string): Promise<ScratchDatabase> => {
    const database = await createScratchDatabase((server as { url: string }).url, label);
    databases.push(database);
    await runStatements(database.url, `GRANT CREATE, USAGE ON SCHEMA public TO ${roles.owner}`);
    await (await openEventStore(urlAs(database.url, roles.owner))).close();
    await runStatements(database.url, ...APP_GRANTS.map((grant) => grant.replace("{role}", roles.app)));
    return database;
  };
  /** Every row of every partitioned table, as JSON text, sorted: what a conversion must keep. */
  const everyRow = async (url: string) => {
    const dump: Record<string, string[]> = {};
    for (const table of PARTITIONED_TABLES) {
      const rows = await runStatements<{ r: string }>(url, `SELECT row_to_json(t)::text AS r FROM ${table} t`);
      dump[table] = rows.map((row) => row.r).sort();
    }
    return dump;
  };
  /** Each partitioned table's kind (r plain, p partitioned) and partition count. */
  const layout = (url: string) =>
    runStatements<{ table: string; kind: string; partitions: number }>(
      url,
      `SELECT c.relname AS table, c.relkind::text AS kind,
        (SELECT count(*) FROM pg_inherits WHERE inhparent = c.oid)::int AS partitions
       FROM pg_class c WHERE c.relname = ANY('{${PARTITIONED_TABLES.join(",")}}') ORDER BY c.relname`,
    );
  const plain = PARTITIONED_TABLES.map((table) => ({ table, kind: "r", partitions: 0 })).sort((a, b) =>
    a.table.localeCompare(b.table),
  );
  const divided = (partitions: number) => plain.map((t) => ({ ...t, kind: "p", partitions }));

  beforeAll(async () => {
    if ("skip" in server) return;
    await runStatements(
      server.url,
      `CREATE ROLE ${roles.owner} LOGIN NOSUPERUSER NOBYPASSRLS`,
      `CREATE ROLE ${roles.app} LOGIN NOSUPERUSER NOBYPASSRLS`,
    );
  });

  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.close().catch(() => {})));
    for (const database of databases) await database.drop();
    if ("skip" in server) return;
    await runStatements(server.url, `DROP OWNED BY ${roles.owner}, ${roles.app}`).catch(() => {});
    await runStatements(server.url, `DROP ROLE IF EXISTS ${roles.owner}`, `DROP ROLE IF EXISTS ${roles.app}`);
  });

  it("divides a populated log of two tenants, keeping every row; each tenant goes on, confined to its rows", async () => {
    const database = await ownedDatabase("partition_two");
    const ownerUrl = urlAs(database.url, roles.owner);
    const open = async (tenant: string) => {
      const runtime = await openPalimpsest({ url: urlAs(database.url, roles.app), tenant, snapshotEvery: 1 });
      runtimes.push(runtime);
      return runtime;
    };
    const markers = { acme: uniqueMarker("acme"), globex: uniqueMarker("globex") };
    const sessions: Record<string, string> = {};
    for (const tenant of ["acme", "globex"] as const) {
      const runtime = await open(tenant);
      sessions[tenant] = (await populatedSession(runtime, markers[tenant])).id;
      await new AuditReadModels(runtime.store).catchUp();
    }
    const views = Object.fromEntries(
      await Promise.all(
        Object.entries(sessions).map(async ([tenant, id]) => {
          const runtime = runtimes[tenant === "acme" ? 0 : 1] as Palimpsest;
          return [tenant, (await runtime.resume(id)).view()] as const;
        }),
      ),
    );
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
    const before = await everyRow(database.url);
    const noStatistics = `SELECT c.relname || '.' || a.attname AS column FROM pg_attribute a
      JOIN pg_class c ON c.oid = a.attrelid WHERE a.attstattarget = 0 AND c.relname = ANY('{${PARTITIONED_TABLES.join(",")}}')
      ORDER BY 1`;
    const withoutStatistics = await runStatements<{ column: string }>(database.url, noStatistics);
    expect(withoutStatistics.length).toBeGreaterThan(0);
    const [{ max: lastPosition } = { max: "0" }] = await runStatements<{ max: string }>(
      database.url,
      "SELECT max(position)::text AS max FROM events",
    );

    const reported: string[] = [];
    const result = await partitionLog(ownerUrl, { partitions: 4, onTable: (t) => reported.push(t.name) });
    expect(reported).toEqual(PARTITIONED_TABLES);
    expect(result.tables.every((t) => t.converted)).toBe(true);
    expect(result.tables.find((t) => t.name === "events")?.rows).toBe(before.events?.length);
    expect(await layout(database.url)).toEqual(divided(4));
    expect(await everyRow(database.url)).toEqual(before);
    expect(await runStatements(database.url, noStatistics)).toEqual(withoutStatistics);
    const leftOver = await runStatements(
      database.url,
      "SELECT relname FROM pg_class WHERE relname LIKE '%unpartitioned%'",
    );
    expect(leftOver).toEqual([]);

    // The application role goes on: each tenant resumes its session as it was and appends after the old positions.
    for (const tenant of ["acme", "globex"] as const) {
      const runtime = await open(tenant);
      const session = await runtime.resume(sessions[tenant] as string);
      expect(session.view()).toEqual(views[tenant]);
      const [written] = await session.append({ role: "user", content: `after the conversion ${tenant}` });
      expect(written?.position).toBeGreaterThan(Number(lastPosition));
      expect(await runtime.store.listSessions()).toHaveLength(1);
    }
    // Raw SQL as the application role, through the parents and on a partition: only its tenant's rows.
    for (const tenant of ["acme", "globex"]) {
      const url = urlAs(database.url, roles.app, tenant);
      for (const table of TENANT_TABLES) {
        const rows = await runStatements<{ tenant_id: string }>(url, `SELECT DISTINCT tenant_id FROM ${table}`);
        expect(
          rows.every((r) => r.tenant_id === tenant),
          `${tenant} reading ${table}`,
        ).toBe(true);
      }
      for (let p = 0; p < 4; p++) {
        const direct = await runStatements<{ tenant_id: string }>(
          url,
          `SELECT DISTINCT tenant_id FROM events_p${p}`,
        ).catch((error: Error) => error.message);
        // Not granted (the grants were given before the partitions existed), or confined by the same policy.
        if (typeof direct === "string") expect(direct).toMatch(/permission denied/);
        else expect(direct.every((r) => r.tenant_id === tenant)).toBe(true);
      }
    }

    // The purge rewrites each partition on its own, and leaves no copy of an erased session.
    const acme = runtimes[0] as Palimpsest;
    await acme.erase(sessions.acme as string);
    const owner = await openPalimpsest({ url: ownerUrl });
    runtimes.push(owner);
    const purged = await owner.purgeErased();
    expect(purged.relations.map((r) => r.name)).toContain("events_p3");
    expect(purged.relations.map((r) => r.name)).not.toContain("events");
    expect(purged.relations.map((r) => r.name)).toContain("handoffs"); // not partitioned: rewritten whole
    expect(Object.fromEntries(await scanDatabaseFiles(database.url, [markers.acme]))).toEqual({});
    expect((await scanDatabaseFiles(database.url, [markers.globex])).size).toBeGreaterThan(0);
  });

  it("run again changes nothing; into another number it divides again; two at once take turns", async () => {
    const database = await ownedDatabase("partition_again");
    const ownerUrl = urlAs(database.url, roles.owner);
    const runtime = await openPalimpsest({ url: ownerUrl });
    runtimes.push(runtime);
    const session = await runtime.startSession({ model: "gpt-4o" });
    for (let n = 0; n < 5; n++) await session.append({ role: "user", content: `message ${n}` });
    const before = await everyRow(database.url);

    const [first, second] = await Promise.all([
      partitionLog(ownerUrl, { partitions: 4 }),
      partitionLog(ownerUrl, { partitions: 4 }),
    ]);
    const converted = [first, second].map((r) => r.tables.filter((t) => t.converted).length).sort();
    expect(converted).toEqual([0, PARTITIONED_TABLES.length]);
    expect((await partitionLog(ownerUrl, { partitions: 4 })).tables.some((t) => t.converted)).toBe(false);
    expect(await layout(database.url)).toEqual(divided(4));

    const again = await partitionLog(ownerUrl, { partitions: 16 });
    expect(again.tables.every((t) => t.converted)).toBe(true);
    expect(await layout(database.url)).toEqual(divided(16));
    expect(await everyRow(database.url)).toEqual(before);
    await session.append({ role: "user", content: "after two conversions" });
    expect((await runtime.resume(session.id)).view().messages).toHaveLength(6);
  });

  it("another process's appends go on through the conversion: each one succeeds and is in the log once", async () => {
    const database = await ownedDatabase("partition_writers");
    const writer = startScript("test/support/steady-writer.ts", [database.url, "3"]);
    try {
      const lines = writer.messages as { started?: string[]; stored?: string; sessionId?: string; error?: string }[];
      const stored = () => lines.filter((l) => l.stored !== undefined).length;
      await until(() => stored() >= 20, `the writer's first appends (stderr: ${writer.stderr()})`);
      const during = stored();
      await partitionLog(urlAs(database.url, roles.owner), { partitions: 4 });
      await until(() => stored() >= during + 20, "the writer's appends after the conversion");
      writer.endInput();
      expect(await writer.exited).toEqual({ code: 0, signal: null });
      expect(lines.filter((l) => l.error !== undefined)).toEqual([]);
      const store = await openEventStore(database.url);
      try {
        for (const sessionId of lines.find((l) => l.started !== undefined)?.started ?? []) {
          const expected = lines.filter((l) => l.sessionId === sessionId).map((l) => l.stored);
          const log = await store.readStream(sessionId);
          expect(log.flatMap((e) => (e.type === "message.appended" ? [e.data.message.id] : []))).toEqual(expected);
        }
      } finally {
        await store.close();
      }
      expect(await layout(database.url)).toEqual(divided(4));
    } finally {
      writer.endInput();
      await writer.exited;
    }
  });

  it("refuses bad options, another engine and a role that does not own the tables, changing nothing", async () => {
    const database = await ownedDatabase("partition_refused");
    const ownerUrl = urlAs(database.url, roles.owner);
    for (const options of [{ partitions: 1 }, { partitions: 2.5 }, { partitions: 5000 }, { partitions: "4" }, {}]) {
      const error = await rejection(partitionLog(ownerUrl, options as { partitions: number }));
      expect([error.code, error.details]).toMatchObject(["VALIDATION", { path: "partitions" }]);
    }
    const unknown = await rejection(partitionLog(ownerUrl, { partitions: 4, tables: ["events"] } as never));
    expect(unknown.code).toBe("VALIDATION");
    const sqlite = await rejection(partitionLog(":memory:", { partitions: 4 }));
    expect([sqlite.code, sqlite.message]).toEqual(["VALIDATION", expect.stringMatching(/only a PostgreSQL log/)]);
    const notOwner = await rejection(partitionLog(urlAs(database.url, roles.app), { partitions: 4 }));
    expect([notOwner.code, notOwner.message]).toEqual([
      "STORAGE",
      expect.stringMatching(new RegExp(`the role ${roles.app} does not own .*events.*nothing was changed`)),
    ]);
    expect(await layout(database.url)).toEqual(plain);
  });

  /** A database with enough rows that copying its events takes a while (400 sessions of 100 events), and them. */
  const largerDatabase = async (label: string) => {
    const database = await ownedDatabase(label);
    const ownerUrl = urlAs(database.url, roles.owner);
    const store = await openEventStore(ownerUrl);
    try {
      for (let s = 0; s < 400; s++) {
        const sessionId = `cut-${s}`;
        await store.append(
          sessionId,
          [
            { type: "session.started", data: { model: "gpt-4o", encoding: "o200k_base", contextWindow: 128_000 } },
            ...Array.from({ length: 99 }, (_, n) => ({
              type: "message.appended" as const,
              data: {
                message: {
                  id: `${sessionId}-m${n}`,
                  role: "user" as const,
                  content: [{ type: "text" as const, text: `words ${n}` }],
                },
                tokens: 3,
              },
            })),
          ],
          { expectedVersion: "no-stream" },
        );
      }
    } finally {
      await store.close();
    }
    return { url: database.url, ownerUrl, before: await everyRow(database.url) };
  };
  /** The backend copying the events into their partitions, once one is (polled). */
  const copyingBackend = async (url: string): Promise<number> => {
    const copying = "SELECT pid FROM pg_stat_activity WHERE query LIKE 'INSERT INTO \"events\" SELECT%'";
    let pid: number | undefined;
    await until(async () => {
      pid = (await runStatements<{ pid: number }>(url, copying))[0]?.pid;
      return pid !== undefined;
    }, "the conversion copying the events");
    return pid as number;
  };
  /** The old layout is whole after a cut conversion, and the next conversion completes. */
  const expectWholeThenConverted = async (log: Awaited<ReturnType<typeof largerDatabase>>) => {
    expect(await layout(log.url)).toEqual(plain);
    expect(await everyRow(log.url)).toEqual(log.before);
    await partitionLog(log.ownerUrl, { partitions: 8 });
    expect(await layout(log.url)).toEqual(divided(8));
    expect(await everyRow(log.url)).toEqual(log.before);
  };

  it("a conversion whose backend is terminated mid-copy leaves the old layout whole; the next one completes", async () => {
    const log = await largerDatabase("partition_cut");
    // Its rejection is awaited from the start: the cut can land while the termination's own query is in flight.
    const cutting = rejection(partitionLog(log.ownerUrl, { partitions: 8 }));
    const pid = await copyingBackend(log.url);
    await runStatements(log.url, `SELECT pg_terminate_backend(${pid})`);
    const cut = await cutting;
    expect([cut.code, cut.retryable]).toEqual(["STORAGE", true]);
    await expectWholeThenConverted(log);
  });

  it("a process SIGKILLed mid-copy leaves the old layout whole; the next conversion completes", async () => {
    const log = await largerDatabase("partition_kill");
    const child = startScript("test/support/partition-once.ts", [log.ownerUrl, "8"]);
    const pid = await copyingBackend(log.url);
    child.kill("SIGKILL");
    expect(await child.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(child.messages).toEqual([]); // killed before it could finish
    // The backend finds its client gone and rolls back; its locks go with it.
    await until(
      async () => (await runStatements(log.url, `SELECT 1 FROM pg_stat_activity WHERE pid = ${pid}`)).length === 0,
      "the killed conversion's backend to end",
    );
    await expectWholeThenConverted(log);
  });
});
