/**
 * `palimpsest search` on a SQLite file and on PostgreSQL: a compacted message found by its words with
 * the compaction that took it out, the next page's offset, the lineage switch, a query without words refused.
 */
import { compactRange, openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { type CliDatabase, jsonError, postgresCliDatabase, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

/** What `search --json` prints. */
interface Found {
  terms: string[];
  messages: { sessionId: string; seq: number; message: { id: string }; supersededBy?: string; snippet: string }[];
  nextOffset: number | null;
}

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest search (${name})`, () => {
    let db: CliDatabase;
    let sessionId: string;
    let forkId: string;
    let compactionId: string;
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      const runtime = await openPalimpsest({ url: db.url });
      const session = await runtime.startSession({ model: "gpt-4.1" });
      await session.append([...exchange(1), ...exchange(2), ...exchange(3)]);
      const [compaction] = await compactRange(session, { fromId: "u1", toId: "r2", summary: "looked twice" });
      compactionId = compaction?.type === "messages.superseded" ? compaction.data.compactionId : "";
      sessionId = session.id;
      forkId = (await runtime.fork(session.id)).id;
      await runtime.close();
    });
    afterAll(() => db.dispose());

    it("finds compacted originals by their words, pages them, and searches the lineage unless told not to", async () => {
      const json = await runPalimpsest(["--db", db.url, "--json", "search", sessionId, "match", "1"]);
      expect(json).toMatchObject({ code: 0, stderr: "" });
      const found = JSON.parse(json.stdout) as Found;
      expect(found.terms).toEqual(["match", "1"]);
      expect(found.messages[0]).toMatchObject({ message: { id: "t1" }, supersededBy: compactionId });
      const text = await runPalimpsest(["--db", db.url, "search", sessionId.slice(0, 24), "grep", "--limit", "2"]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(`compacted ${compactionId.slice(0, 8)}`);
      expect(text.stdout).toContain("more: --offset 2");
      const viaFork = JSON.parse(
        (await runPalimpsest(["--db", db.url, "--json", "search", forkId, "p1"])).stdout,
      ) as Found;
      expect(viaFork.messages.map((m) => [m.sessionId, m.message.id])).toEqual([[sessionId, "a1"]]);
      const own = await runPalimpsest(["--db", db.url, "--json", "search", forkId, "p1", "--no-lineage"]);
      expect((JSON.parse(own.stdout) as Found).messages).toEqual([]);
      const none = await runPalimpsest(["--db", db.url, "search", sessionId, "zebra"]);
      expect(none.stdout).toBe("no message holds any of: zebra\n");
    });

    it("refuses a query without words with VALIDATION, and a bad limit", async () => {
      const empty = await runPalimpsest(["--db", db.url, "--json", "search", sessionId, "..."]);
      expect(empty.code).not.toBe(0);
      expect(jsonError(empty)).toMatchObject({ code: "VALIDATION" });
      const limit = await runPalimpsest(["--db", db.url, "search", sessionId, "x", "--limit", "0"]);
      expect(limit.code).not.toBe(0);
      expect(limit.stderr).toContain("--limit");
    });
  });
}
