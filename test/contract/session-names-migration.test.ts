import { randomUUID } from "node:crypto";
import type { DomainEvent } from "@palimpsest/core";
import { afterEach, describe, expect, it } from "vitest";
import { type StoreBackend, storeBackends, type TestStore } from "../support/store-backends.ts";
import { databaseOf, undoCacheTokenColumns, undoSearchIndex } from "../support/store-database.ts";
import { userMessage } from "./fixtures.ts";

const backends = storeBackends();

/** A session start with `data` beside the encoding. */
function start(data: Record<string, unknown>): DomainEvent {
  return { type: "session.started", data: { encoding: "o200k_base", ...data } } as DomainEvent;
}

const source = (externalId?: string, file?: string) => ({
  source: {
    format: "claude-code",
    ...(externalId === undefined ? {} : { externalId }),
    ...(file === undefined ? {} : { file }),
  },
});

/** The part of kysely's builders a downgrade uses, over any table (kysely is a store dependency only). */
interface Downgrading {
  deleteFrom(table: string): { where(column: string, op: string, value: string): { execute(): Promise<unknown> } };
}

/**
 * Takes the database back to migration 0010: no name column, no index, 0011 not applied, nor any migration
 * after it (0012's mirror tables and 0014's log keys are dropped: the migrator applies migrations in order only).
 */
async function downgradeTo0010(store: TestStore): Promise<void> {
  const db = databaseOf(store);
  for (const table of ["mirror_sessions", "mirror_entries", "mirror_keys", "log_keys"]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.dropIndex("sessions_name").execute();
  await db.schema.alterTable("sessions").dropColumn("name").execute();
  await db.schema.alterTable("audit_sessions").dropColumn("parent_at_seq").execute(); // 0013, undone too
  await db.schema.alterTable("snapshots").dropColumn("sealed").execute(); // 0017, undone too
  await undoSearchIndex(store); // 0018, undone too
  await undoCacheTokenColumns(store); // 0020 and 0021, undone too
  await (db as unknown as Downgrading)
    .deleteFrom("kysely_migration")
    .where("name", ">", "0010_session_erasure")
    .execute();
}

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`migration 0011_session_names (${backend.name})`, () => {
    let made: StoreBackend | undefined;
    afterEach(async () => {
      await made?.dispose();
      made = undefined;
    });

    it("backfills every session's name from its start, as the append writes it", async () => {
      made = await backend.make();
      const writer = await made.open();
      const run = randomUUID();
      const plain = `plain-${run}`;
      const parent = `parent-${run}`;
      const starts: [string, DomainEvent, string | undefined][] = [
        [parent, start(source(plain)), plain],
        // `\u` escapes in the event's JSON text: a NUL or a lone surrogate (refused by PostgreSQL's JSON
        // functions, and no name), a control character (a name), a Windows path (a name).
        [`nul-title-${run}`, start({ title: "a \0 title", ...source(`after-nul-${run}`) }), `after-nul-${run}`],
        [`control-${run}`, start(source(`control \u0001 ${run}`)), `control \u0001 ${run}`],
        [`path-${run}`, start(source(`path-${run}`, "C:\\users\\me\\t.jsonl")), `path-${run}`],
        [`nul-name-${run}`, start(source("nul \0 name")), undefined],
        [`surrogate-${run}`, start(source("lone \ud800")), undefined],
        [`empty-${run}`, start(source("")), undefined],
        [`no-id-${run}`, start(source()), undefined],
        [`no-source-${run}`, start({}), undefined],
        [
          `successor-${run}`,
          start({ ...source(plain), parent: { sessionId: parent, relation: "handoff" } }),
          undefined,
        ],
        [
          `fork-${run}`,
          start({ ...source(plain), parent: { sessionId: parent, relation: "fork", atSeq: 1 } }),
          undefined,
        ],
        [
          `subagent-${run}`,
          start({ ...source(`agent-${run}`), parent: { sessionId: parent, relation: "subagent" } }),
          `agent-${run}`,
        ],
        [`erased-${run}`, start({ title: "gone", ...source(`erased-${run}`) }), `erased-${run}`],
      ];
      for (const [id, event] of starts) {
        await writer.append(id, [event, userMessage(`${id}-m`, "hello")], { expectedVersion: "no-stream" });
      }
      await writer.erase(`erased-${run}`);
      const written = new Map((await writer.listSessions()).map((s) => [s.sessionId, s.name]));
      expect(Object.fromEntries(written)).toEqual(Object.fromEntries(starts.map(([id, , name]) => [id, name])));

      await downgradeTo0010(writer);
      expect((await writer.listSessions()).every((s) => s.name === undefined)).toBe(true);
      await writer.close();

      const migrated = await made.open(); // migrates 0011 again: the backfill
      const backfilled = new Map((await migrated.listSessions()).map((s) => [s.sessionId, s.name]));
      expect(backfilled).toEqual(written);
      expect(await migrated.sessionsNamed(plain)).toEqual([parent]);
      expect(await migrated.sessionsNamed(`control \u0001 ${run}`)).toEqual([`control-${run}`]);
      // Later appends leave the backfilled name as it is.
      await migrated.append(`control-${run}`, [userMessage("later", "again")], { expectedVersion: 2 });
      expect((await migrated.getSession(`control-${run}`))?.name).toBe(`control \u0001 ${run}`);
    });
  });
}
