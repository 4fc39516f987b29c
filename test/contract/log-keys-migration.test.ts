import { randomUUID } from "node:crypto";
import { keysOfEvents } from "@palimpsest/core";
import { afterEach, describe, expect, it } from "vitest";
import { type StoreBackend, storeBackends, type TestStore } from "../support/store-backends.ts";
import { databaseOf, undoCacheTokenColumns, undoSearchIndex } from "../support/store-database.ts";
import { started, summaryEvent, userMessage } from "./fixtures.ts";

/** The part of kysely's builders a downgrade uses, over any table (kysely is a store dependency only). */
interface Downgrading {
  deleteFrom(table: string): { where(column: string, op: string, value: string): { execute(): Promise<unknown> } };
}

/**
 * Takes the database back to migration 0013: no log_keys table, 0014 not applied (nor 0017: no sealed
 * snapshots; nor 0018: no search index; nor 0020 and 0021: no prompt-cache columns).
 */
async function downgradeTo0013(store: TestStore): Promise<void> {
  const db = databaseOf(store);
  await db.schema.dropTable("log_keys").execute();
  await db.schema.alterTable("snapshots").dropColumn("sealed").execute();
  await undoSearchIndex(store);
  await undoCacheTokenColumns(store);
  await (db as unknown as Downgrading)
    .deleteFrom("kysely_migration")
    .where("name", ">", "0013_audit_fork_point")
    .execute();
}

for (const backend of storeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`migration 0014_log_keys (${backend.name})`, () => {
    let made: StoreBackend | undefined;
    afterEach(async () => {
      await made?.dispose();
      made = undefined;
    });

    it("backfills the keys of every event already in the log, over many pages, and none of an erased session", async () => {
      made = await backend.make();
      const writer = await made.open();
      const run = randomUUID();
      const long = `long-${run}`;
      const compacted = `compacted-${run}`;
      const erased = `erased-${run}`;
      // 4,500 messages: more than two of the backfill's pages of 2,000 events.
      const messages = Array.from({ length: 4_500 }, (_, i) => userMessage(`m${i}`, `note ${i}`));
      await writer.append(long, [started(), ...messages], { expectedVersion: "no-stream" });
      await writer.append(compacted, [started(), userMessage("u1", "a"), userMessage("u2", "b")], {
        expectedVersion: "no-stream",
      });
      await writer.append(compacted, [summaryEvent("k1", ["u1"], "s1")], {
        expectedVersion: 3,
        viewVersion: { expected: 0 },
      });
      await writer.append(erased, [started(), userMessage("gone", "secret")], { expectedVersion: "no-stream" });
      await writer.erase(erased);
      const expected = new Map<string, Set<string>>();
      for (const id of [long, compacted]) expected.set(id, keysOfEvents(await writer.readStream(id)));
      expect(expected.get(long)?.size).toBe(4_500);
      expect(expected.get(compacted)).toEqual(new Set(["message:u1", "message:u2", "compaction:k1", "message:s1"]));

      await downgradeTo0013(writer);
      await writer.close();
      const migrated = await made.open(); // applies 0014 again: the backfill
      for (const [id, keys] of expected) {
        expect(await migrated.knownKeys(id, [...keys, "message:none"])).toEqual(keys);
      }
      expect(await migrated.knownKeys(erased, ["message:gone"])).toEqual(new Set());
      // Appends after the backfill add their keys beside the backfilled ones.
      await migrated.append(compacted, [userMessage("u3", "c")], { expectedVersion: 4 });
      expect(await migrated.knownKeys(compacted, ["message:u1", "message:u3"])).toEqual(
        new Set(["message:u1", "message:u3"]),
      );
    });
  });
}
