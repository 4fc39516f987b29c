import { openEventStore } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { type CliDatabase, jsonError, postgresCliDatabase, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest watch (${name})`, () => {
    let db: CliDatabase;
    let store: Awaited<ReturnType<typeof openEventStore>>;
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      store = await openEventStore(db.url);
    });
    afterAll(async () => {
      await store.close();
      await db.dispose();
    });

    it("prints a session's events from a seq, then those another store commits, and stops at --count", async () => {
      const sid = newSessionId("watch");
      await store.append(sid, [started(), userMessage("m2", "before")], { expectedVersion: "no-stream" });
      let printed: () => void = () => {};
      const caughtUp = new Promise<void>((resolve) => {
        printed = resolve;
      });
      const watching = runPalimpsest(["--db", db.url, "--json", "watch", sid, "--from-seq", "2", "--count", "4"], {
        onStdout: () => printed(),
      });
      await caughtUp; // it printed seq 2, read after subscribing to the feed: what follows comes live
      for (const [seq, text] of [
        [2, "after one"],
        [3, "after two"],
        [4, "after three"],
      ] as const) {
        await store.append(sid, [userMessage(`m${seq + 1}`, text)], { expectedVersion: seq });
      }
      const result = await watching;
      expect(result.code).toBe(0);
      const events = result.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { seq: number; sessionId: string });
      expect(events.map((e) => [e.sessionId, e.seq])).toEqual([2, 3, 4, 5].map((seq) => [sid, seq]));
    });

    it("prints every session's new events from a global checkpoint, one readable line each", async () => {
      const after = await store.globalHead();
      const [a, b] = [newSessionId("watch-a"), newSessionId("watch-b")];
      const watching = runPalimpsest(["--db", db.url, "watch", "--after", after, "--count", "3"]);
      await store.append(a, [started()], { expectedVersion: "no-stream" });
      await store.append(b, [started(), userMessage("b2", "hello from b")], { expectedVersion: "no-stream" });
      const result = await watching;
      expect(result.code).toBe(0);
      const lines = result.stdout.trim().split("\n");
      expect(lines).toHaveLength(3);
      expect(lines[2]).toMatch(/^\S{8}\s+2 user b2 \(1 token\): hello from b$/);
    });

    it("rejects bad flags and unknown sessions with stable codes", async () => {
      const badCount = await runPalimpsest(["--db", db.url, "--json", "watch", "--count", "0"]);
      expect([badCount.code, jsonError(badCount).code]).toEqual([2, "VALIDATION"]);
      const badCheckpoint = await runPalimpsest(["--db", db.url, "--json", "watch", "--after", "not-a-checkpoint"]);
      expect([badCheckpoint.code, jsonError(badCheckpoint).code]).toEqual([2, "VALIDATION"]);
      const unknown = await runPalimpsest(["--db", db.url, "--json", "watch", "no-such-session"]);
      expect([unknown.code, jsonError(unknown).code]).toEqual([1, "NOT_FOUND"]);
    });
  });
}
