/**
 * Migrations 0020 and 0021 on a database from before them: the audit's compaction rows and the
 * pre-compaction candidates gain the summarizer's prompt-cache columns, null for what was there (no
 * backfill: no event before them records the cache's share, so a rebuild from the log agrees), and what
 * is written after them holds the counts.
 */
import { randomUUID } from "node:crypto";
import type { DomainEvent } from "@palimpsest/core";
import { AuditReadModels } from "@palimpsest/store";
import { afterEach, describe, expect, it } from "vitest";
import { type StoreBackend, storeBackends, type TestStore } from "../support/store-backends.ts";
import { databaseOf, undoCacheTokenColumns } from "../support/store-database.ts";
import { testCandidate } from "../support/test-candidate.ts";
import { started, summaryEvent, userMessage } from "./fixtures.ts";

/** The part of kysely's builders a downgrade uses, over any table (kysely is a store dependency only). */
interface Downgrading {
  deleteFrom(table: string): { where(column: string, op: string, value: string): { execute(): Promise<unknown> } };
}

/** Takes the database back to migration 0019: no prompt-cache columns, 0020 and 0021 not applied. */
async function downgradeTo0019(store: TestStore): Promise<void> {
  await undoCacheTokenColumns(store);
  await (databaseOf(store) as unknown as Downgrading)
    .deleteFrom("kysely_migration")
    .where("name", ">", "0019_search_pending")
    .execute();
}

/** A summary compaction with `stats` beside the fixture's other fields. */
function compaction(id: string, target: string, viewVersion: number, stats: Record<string, number>): DomainEvent {
  const event = summaryEvent(id, [target], `${id}-summary`, viewVersion);
  return { ...event, data: { ...event.data, stats: { tokensBefore: 10, tokensAfter: 5, ...stats } } } as DomainEvent;
}

for (const backend of storeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`migrations 0020 and 0021, prompt-cache tokens (${backend.name})`, () => {
    let made: StoreBackend | undefined;
    afterEach(async () => {
      await made?.dispose();
      made = undefined;
    });

    it("adds the columns, null for the rows already there, and later rows hold the counts", async () => {
      made = await backend.make();
      const writer = await made.open();
      const sid = `cache-${randomUUID()}`;
      await writer.append(sid, [started(), userMessage("u1", "a"), userMessage("u2", "b")], {
        expectedVersion: "no-stream",
      });
      await writer.append(sid, [compaction("k1", "u1", 0, { auxTokensIn: 900, auxTokensOut: 30 })], {
        expectedVersion: 3,
        viewVersion: { expected: 0 },
      });
      const before = testCandidate(sid, { basisViewVersion: 1, auxTokensIn: 900, auxTokensOut: 30 });
      expect(await writer.saveCandidate(before)).toBe(true);
      await new AuditReadModels(writer).catchUp();
      await downgradeTo0019(writer);
      await writer.close();

      const migrated = await made.open(); // applies 0020 and 0021
      const audit = new AuditReadModels(migrated);
      expect(await audit.compactions({ sessionId: sid })).toEqual([
        expect.objectContaining({ auxTokensIn: 900, auxTokensCacheRead: null, auxTokensCacheWrite: null }),
      ]);
      expect(await migrated.loadCandidate(sid)).toEqual(before);
      expect(await audit.rebuild({ checkOnly: true })).toMatchObject({ equal: true });

      const cache = { auxTokensIn: 5_000, auxTokensOut: 60, auxTokensCacheRead: 4_800, auxTokensCacheWrite: 100 };
      await migrated.append(sid, [userMessage("u3", "c"), compaction("k2", "u2", 1, cache)], {
        expectedVersion: 4,
        viewVersion: { expected: 1 },
      });
      const after = testCandidate(sid, { basisViewVersion: 2, ...cache });
      expect(await migrated.saveCandidate(after)).toBe(true);
      expect(await migrated.loadCandidate(sid)).toEqual(after);
      expect((await audit.compactions({ sessionId: sid })).map((c) => c.auxTokensCacheRead)).toEqual([null, 4_800]);
      expect(await audit.rebuild({ checkOnly: true })).toMatchObject({ equal: true });
    });
  });
}
