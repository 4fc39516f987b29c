import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseTranscript } from "@palimpsest/core";
import { compactRange, importSessions, openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { type CliDatabase, jsonError, postgresCliDatabase, ROOT, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

const DEMO = readFileSync(join(ROOT, "examples/demo-session.jsonl"), "utf8");

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest lookups and flags that do not apply (${name})`, () => {
    let db: CliDatabase;
    let sessionId: string;
    let compactionIds: string[];
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, "--json", ...args]);
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      const runtime = await openPalimpsest({ url: db.url });
      const [result] = await importSessions(runtime, parseTranscript(DEMO, { fileName: "demo-session.jsonl" }));
      sessionId = result?.sessionId ?? "";
      const session = await runtime.resume(sessionId);
      compactionIds = [];
      for (const [from, to] of [
        [1, 3],
        [2, 4],
      ] as const) {
        const live = session.view().messages;
        const [event] = await compactRange(session, {
          fromId: live[from]?.id ?? "",
          toId: live[to]?.id ?? "",
          summary: `summary ${from}`,
        });
        if (event?.type === "messages.superseded") compactionIds.push(event.data.compactionId);
      }
      await runtime.close();
    });
    afterAll(() => db.dispose());

    it("refuses watch flags that do not apply, and says an unknown message or compaction is not found", async () => {
      const [after, fromSeq, message, compaction] = await Promise.all([
        cli("watch", sessionId, "--after", ""),
        cli("watch", "--from-seq", "2"),
        cli("audit", "message", "no-such-message"),
        cli("audit", "compaction", "no-such-compaction"),
      ]);
      for (const [result, flag] of [
        [after, "--after"],
        [fromSeq, "--from-seq"],
      ] as const) {
        expect(result.code).toBe(2);
        expect(jsonError(result)).toMatchObject({ code: "VALIDATION" });
        expect(jsonError(result).message).toContain(flag);
      }
      expect(message.code).toBe(1);
      expect(jsonError(message)).toMatchObject({
        code: "NOT_FOUND",
        details: { kind: "message", id: "no-such-message" },
      });
      expect(compaction.code).toBe(1);
      expect(jsonError(compaction)).toMatchObject({ code: "NOT_FOUND", details: { kind: "compaction" } });
    });

    it("takes a unique prefix of a compaction id, and lists the candidates of an ambiguous one", async () => {
      const [first, second] = compactionIds as [string, string];
      let shared = 0;
      while (first[shared] === second[shared]) shared++;
      const [audited, expanded, ambiguous] = await Promise.all([
        cli("audit", "compaction", first.slice(0, shared + 1)),
        cli("expand", sessionId.slice(0, 8), second.slice(0, shared + 1)),
        cli("audit", "compaction", first.slice(0, shared)),
      ]);
      expect(audited.code, audited.stderr).toBe(0);
      expect(JSON.parse(audited.stdout)).toMatchObject([{ sessionId, messageId: first }]);
      expect(expanded.code, expanded.stderr).toBe(0);
      expect((JSON.parse(expanded.stdout) as unknown[]).length).toBeGreaterThanOrEqual(3);
      expect(ambiguous.code).toBe(2);
      expect(jsonError(ambiguous)).toMatchObject({
        code: "VALIDATION",
        details: { issues: [first, second].sort().map((message) => ({ code: "custom", message })) },
      });
    });
  });
}
