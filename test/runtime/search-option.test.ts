/**
 * openEventStore's `search` option on both engines: a store opened with `search: false` indexes nothing
 * it appends (its searches find none of it), another opened on the same database with the default indexes
 * what it appends; anything but a boolean is refused with VALIDATION before anything opens. And migration
 * 0018 on a database written before it: the messages already stored are found, an erased session's not.
 */
import { searchTerms } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import { afterAll, describe, expect, it } from "vitest";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import { rejection } from "../support/rejection.ts";
import { databaseOf, undoCacheTokenColumns, undoSearchIndex } from "../support/store-database.ts";
import { testEngines } from "../support/test-engines.ts";

/** The part of kysely's builders a downgrade uses, over any table (kysely is a store dependency only). */
interface Downgrading {
  deleteFrom(table: string): { where(column: string, op: string, value: string): { execute(): Promise<unknown> } };
}

for (const engine of testEngines()) {
  describe.skipIf(engine.skip !== undefined)(`openEventStore search option (${engine.name})`, () => {
    const drops: (() => Promise<void>)[] = [];
    afterAll(async () => {
      for (const drop of drops) await drop();
    });

    it("indexes nothing with search: false, and what a default store appends on the same database", async () => {
      const database = await engine.create("searchoff");
      drops.push(database.drop);
      const [off, on] = [await openEventStore(database.url, { search: false }), await openEventStore(database.url)];
      try {
        const [quiet, indexed] = [newSessionId("off"), newSessionId("on")];
        await off.append(quiet, [started(), userMessage("q", "the aardvark report")], { expectedVersion: "no-stream" });
        await on.append(indexed, [started(), userMessage("i", "the aardvark report")], {
          expectedVersion: "no-stream",
        });
        const query = { sessionIds: [quiet, indexed], terms: searchTerms("aardvark"), limit: 10 };
        for (const store of [off, on]) {
          expect((await store.searchMessages(query)).map((h) => h.event.sessionId)).toEqual([indexed]);
        }
      } finally {
        await off.close();
        await on.close();
      }
    });

    it("migration 0018 indexes the messages stored before it, and none of an erased session", async () => {
      const database = await engine.create("searchbackfill");
      drops.push(database.drop);
      const before = await openEventStore(database.url);
      const [kept, erased] = [newSessionId("kept"), newSessionId("erased")];
      for (const sid of [kept, erased]) {
        const messages = Array.from({ length: 30 }, (_, i) => userMessage(`m${i}`, `pelican report ${i} of ${sid}`));
        await before.append(sid, [started(), ...messages], { expectedVersion: "no-stream" });
      }
      await before.erase(erased);
      // Back to before 0018: no index, the steps not recorded.
      await undoSearchIndex(before);
      await undoCacheTokenColumns(before);
      await (databaseOf(before) as unknown as Downgrading)
        .deleteFrom("kysely_migration")
        .where("name", ">=", "0018_message_search")
        .execute();
      await before.close();
      const after = await openEventStore(database.url);
      try {
        const query = { sessionIds: [kept, erased], terms: searchTerms("pelican"), limit: 100 };
        const found = await after.searchMessages(query);
        expect(found).toHaveLength(30);
        expect(new Set(found.map((h) => h.event.sessionId))).toEqual(new Set([kept]));
      } finally {
        await after.close();
      }
    });

    it("refuses a search option that is not a boolean", async () => {
      const database = await engine.create("searchbad");
      drops.push(database.drop);
      const error = await rejection(openEventStore(database.url, { search: "no" as unknown as boolean }));
      expect([error.code, error.details.path]).toEqual(["VALIDATION", "search"]);
    });
  });
}
