/**
 * Migration 0016 on a database the schema before it wrote: every row of every table stays, as it was,
 * in the `default` tenant; the sessions resume as they were; new appends continue the positions; another
 * tenant starts empty and may reuse the ids. The rows come from a real runtime's work (messages, a
 * compaction, a fork, a hand-off request, snapshots, the audit models), copied into a database migrated
 * up to 0015 only (without the tenant column where 0015 had none), on both engines.
 */
import { openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels } from "@palimpsest/store";
import { afterAll, describe, expect, it } from "vitest";
import type { EngineAdapter } from "../../packages/store/src/engine/engine-adapter.ts";
import { openerFor } from "../../packages/store/src/engine/engines.ts";
import { migrateToLatest } from "../../packages/store/src/engine/migrate.ts";
import { TENANT_COLUMN, TENANT_TABLES } from "../../packages/store/src/engine/tenant-scope.ts";
import { storeMigrations } from "../../packages/store/src/open/store-features.ts";
import { databaseOf } from "../support/store-database.ts";
import { testEngines } from "../support/test-engines.ts";

/** The tables that had a tenant column before migration 0016. */
const TENANT_BEFORE = new Set(["events", "sessions"]);

/** Columns an insert leaves to the database (the log's positions, PostgreSQL's transaction ids). */
const GENERATED = new Set(["position", "transaction_id"]);

type Row = Record<string, unknown>;

/**
 * Columns migrations after 0016 add, by table, with what a plain store's rows hold there (0017: sealed
 * snapshots; 0020 and 0021: the summarizer's prompt-cache tokens, which the offline summarizer never reports).
 */
const CACHE_TOKENS: Row = { aux_tokens_cache_read: null, aux_tokens_cache_write: null };
const ADDED_AFTER: Record<string, Row> = {
  snapshots: { sealed: null },
  audit_compactions: CACHE_TOKENS,
  precompaction_candidates: CACHE_TOKENS,
};

/** Columns later migrations add that only index others (0018's search vectors): neither copied nor compared. */
const INDEXES_AFTER: Record<string, readonly string[]> = { events: ["search"] };

/** `row` without the columns INDEXES_AFTER names for `table`. */
const withoutIndexes = (table: string, row: Row): Row =>
  Object.fromEntries(Object.entries(row).filter(([column]) => !INDEXES_AFTER[table]?.includes(column)));

/** Every table's rows, each as canonical text, sorted: what a migration must keep. */
async function dump(db: EngineAdapter["db"]): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const table of TENANT_TABLES) {
    const rows = (await db
      .selectFrom(table as "events")
      .selectAll()
      .execute()) as Row[];
    tables[table] = rows
      .map((row) => JSON.stringify(Object.entries(withoutIndexes(table, row)).sort(([a], [b]) => a.localeCompare(b))))
      .sort();
  }
  return tables;
}

/** A runtime's work on a fresh database: what the copied rows are made of. */
async function populate(runtime: Palimpsest): Promise<string[]> {
  const first = await runtime.startSession({ sessionId: "first", model: "gpt-4o" });
  for (let i = 0; i < 4; i++) {
    await first.append(
      [
        { id: `q${i}`, role: "user", content: `question ${i}` },
        { id: `a${i}`, role: "assistant", content: `answer ${i}` },
      ],
      { turnId: `t${i}`, idempotencyKey: `k${i}` },
    );
    await first.completeTurn(`t${i}`);
  }
  await first.supersede({
    compactionId: "c1",
    targets: ["q0", "a0", "q1", "a1"],
    replacements: [
      {
        kind: "summary",
        message: { id: "s1", role: "user", content: [{ type: "text", text: "two turns" }] },
        tokens: 2,
      },
    ],
    mode: "summary",
    basis: { viewVersion: first.state.viewVersion },
    producer: { policy: "test" },
    stats: { tokensBefore: 20, tokensAfter: 2 },
    trigger: "manual",
  });
  const fork = await runtime.fork(first.id, { toSessionId: "forked" });
  const second = await runtime.startSession({ sessionId: "second" });
  await second.append({ role: "user", content: "hello" });
  await runtime.handoffs.request(second, { successorSessionId: "successor" });
  await new AuditReadModels(runtime.store).catchUp();
  return [first.id, fork.id, second.id];
}

for (const engine of testEngines()) {
  describe.skipIf(engine.skip !== undefined)(`migration 0016 on a database written before it (${engine.name})`, () => {
    const drops: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const drop of drops) await drop();
    });

    it("keeps every row in the default tenant, resumes every session, and lets another tenant reuse the ids", async () => {
      const source = await engine.create("tenant_source");
      const target = await engine.create("tenant_target");
      drops.push(source.drop, target.drop);

      const writer = await openPalimpsest({ url: source.url, snapshotEvery: 1 });
      const ids = await populate(writer);
      await writer.settled(); // its snapshots, written in the background
      const views = await Promise.all(ids.map(async (id) => (await writer.resume(id)).view()));
      const sourceDb = databaseOf(writer.store);

      // The target: migrated up to 0015, then the source's rows as that schema held them.
      const opener = openerFor(target.url);
      const adapter = await opener.open(target.url, {}, "default");
      const all = storeMigrations(adapter.dialect);
      const before0016 = Object.fromEntries(Object.entries(all).filter(([name]) => name < "0016"));
      await migrateToLatest(adapter.db, before0016);
      let copied = 0;
      for (const table of TENANT_TABLES) {
        const rows = (await sourceDb
          .selectFrom(table as "events")
          .selectAll()
          .$if(table === "events", (q) => q.orderBy("position"))
          .execute()) as Row[];
        for (const row of rows) {
          const values = Object.fromEntries(
            Object.entries(withoutIndexes(table, row)).filter(
              ([column]) =>
                !GENERATED.has(column) &&
                (column !== TENANT_COLUMN || TENANT_BEFORE.has(table)) &&
                !(column in (ADDED_AFTER[table] ?? {})),
            ),
          );
          await adapter.db
            .insertInto(table as "events")
            .values(values as never)
            .execute();
          copied++;
        }
      }
      expect(copied).toBeGreaterThan(50);
      const before = await dump(adapter.db);
      for (const table of ["events", "sessions", "log_keys", "snapshots", "idempotency_keys", "handoffs"]) {
        expect(before[table]?.length, table).toBeGreaterThan(0);
      }
      const lastPosition = Number(
        (await adapter.db.selectFrom("events").select("position").orderBy("position", "desc").executeTakeFirst())
          ?.position,
      );

      await migrateToLatest(adapter.db, all);
      const after = await dump(adapter.db);
      await adapter.db.destroy();
      for (const table of TENANT_TABLES) {
        const expected = (before[table] ?? []).map((text) => {
          const row = Object.fromEntries(JSON.parse(text) as [string, unknown][]);
          const withTenant = { ...row, [TENANT_COLUMN]: "default", ...ADDED_AFTER[table] };
          return JSON.stringify(Object.entries(withTenant).sort(([a], [b]) => a.localeCompare(b)));
        });
        expect(after[table], table).toEqual(expected.sort());
      }

      // The migrated database, opened as users open it.
      const migrated = await openPalimpsest({ url: target.url });
      const other = await openPalimpsest({ url: target.url, tenant: "other" });
      try {
        for (const [i, id] of ids.entries()) expect((await migrated.resume(id)).view(), id).toEqual(views[i]);
        const first = await migrated.resume("first");
        const [appended] = await first.append({ role: "user", content: "after the migration" });
        expect(appended?.position).toBeGreaterThan(lastPosition);
        expect(await other.store.listSessions()).toEqual([]);
        const reused = await other.startSession({ sessionId: "first" });
        await reused.append({ role: "user", content: "another tenant's first" });
        expect((await other.resume("first")).view().messages).toHaveLength(1);
        expect((await migrated.resume("first")).view().messages.length).toBeGreaterThan(2);
      } finally {
        await Promise.all([migrated.close(), other.close(), writer.close()]);
      }
    });
  });
}
