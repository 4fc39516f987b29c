/**
 * openEventStore's `search` option on both engines: a store opened with `search: false` indexes nothing
 * it appends (its searches find none of it), another opened on the same database with the default indexes
 * what it appends; anything but a boolean is refused with VALIDATION before anything opens.
 */
import { searchTerms } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import { afterAll, describe, expect, it } from "vitest";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import { rejection } from "../support/rejection.ts";
import { testEngines } from "../support/test-engines.ts";

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

    it("refuses a search option that is not a boolean", async () => {
      const database = await engine.create("searchbad");
      drops.push(database.drop);
      const error = await rejection(openEventStore(database.url, { search: "no" as unknown as boolean }));
      expect([error.code, error.details.path]).toEqual(["VALIDATION", "search"]);
    });
  });
}
