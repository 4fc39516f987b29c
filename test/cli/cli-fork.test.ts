import { openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { type CliDatabase, jsonError, postgresCliDatabase, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest fork (${name})`, () => {
    let db: CliDatabase;
    let parentId: string;
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, "--json", ...args]);
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      const runtime = await openPalimpsest({ url: db.url });
      const session = await runtime.startSession({
        model: "gpt-4.1",
        source: { format: "test", externalId: "named-parent" },
      });
      await session.append([...exchange(1), ...exchange(2)]);
      parentId = session.id;
      await runtime.close();
    });
    afterAll(() => db.dispose());

    it("forks by name after a turn: the fork's view is the first exchange, its lineage names the parent", async () => {
      const forked = await cli("fork", "named-parent", "--turn", "1");
      expect(forked).toMatchObject({ code: 0, stderr: "" });
      const fork = JSON.parse(forked.stdout) as { sessionId: string; liveMessages: number; lineage: unknown };
      expect(fork).toMatchObject({
        liveMessages: 4,
        lineage: { parent: { sessionId: parentId, relation: "fork", atSeq: 5 } },
      });
      const view = JSON.parse((await cli("view", fork.sessionId)).stdout) as { messages: { id: string }[] };
      expect(view.messages.map((m) => m.id)).toEqual(["u1", "a1", "t1", "r1"]);
      const lineage = await cli("audit", "lineage", fork.sessionId);
      expect(lineage.code).toBe(0);
      expect(JSON.parse(lineage.stdout)).toMatchObject({
        session: { sessionId: fork.sessionId, relation: "fork", parentAtSeq: 5 },
        ancestors: [{ sessionId: parentId }],
      });
      const tree = await runPalimpsest(["--db", db.url, "audit", "lineage", fork.sessionId]);
      expect(tree.stdout).toContain(`${fork.sessionId} (fork at seq 5) gpt-4.1`);
      const text = await runPalimpsest([
        "--db",
        db.url,
        "fork",
        parentId.slice(0, 24), // past the time bits: the fork made just before shares them
        "--seq",
        "3",
        "--to",
        "fork-by-seq",
      ]);
      expect(text.stdout).toBe(
        `forked ${parentId} at seq 3 into fork-by-seq: 2 messages, ${text.stdout.match(/(\d+) tokens/)?.[1]} tokens\n`,
      );
    });

    it("refuses a turn the session does not have, and a malformed flag, writing nothing", async () => {
      const sessionsBefore = (await cli("sessions")).stdout;
      const tooFar = await cli("fork", parentId, "--turn", "3");
      expect(tooFar.code).toBe(2);
      // in the CLI's terms: the flag, not the library's option (atTurn)
      expect(jsonError(tooFar)).toMatchObject({
        code: "VALIDATION",
        message: "--turn must be a turn of the session, 0 to 2",
        details: { path: "--turn", issues: [{ message: "--turn: 3 (the session has 2 user messages)" }] },
      });
      const text = await runPalimpsest(["--db", db.url, "fork", parentId, "--seq", "99"]);
      expect(text).toMatchObject({ code: 2, stdout: "" });
      expect(text.stderr).toMatch(
        /^error \[VALIDATION\] --seq must be a seq of the session's log, 1 to \d+\n {2}- --seq: 99\n$/,
      );
      const malformed = await cli("fork", parentId, "--seq", "x");
      expect(jsonError(malformed)).toMatchObject({ code: "VALIDATION" });
      expect((await cli("sessions")).stdout).toBe(sessionsBefore);
    });
  });
}
