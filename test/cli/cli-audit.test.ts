import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { type CliDatabase, jsonError, postgresCliDatabase, ROOT, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

const DEMO = join(ROOT, "examples/demo-session.jsonl");

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest audit (${name})`, () => {
    let db: CliDatabase;
    let session: string;
    let compaction: { compactionId: string; targets: string[]; summaryId: string };
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, "--json", ...args]);
    const json = async <T>(...args: string[]): Promise<T> => {
      const result = await cli(...args);
      expect(result.stderr === "" || result.code === 0 ? result.code : result.stderr).toBe(0);
      return JSON.parse(result.stdout) as T;
    };

    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      const [imported] = await json<{ sessionId: string }[]>("import", DEMO);
      session = imported?.sessionId ?? "";
      const { data } = await json<{
        data: { compactionId: string; targets: string[]; replacements: { message: { id: string } }[] };
      }>("compact", session, "--policy", "summary", "--force");
      compaction = {
        compactionId: data.compactionId,
        targets: data.targets,
        summaryId: data.replacements[0]?.message.id ?? "",
      };
    });
    afterAll(() => db.dispose());

    it("lists, filters and totals compactions", async () => {
      const listed = await json<{ compactionId: string; mode: string; tokensReclaimed: number }[]>(
        "audit",
        "compactions",
      );
      expect(listed.map((c) => c.compactionId)).toEqual([compaction.compactionId]);
      expect(listed[0]?.tokensReclaimed).toBeGreaterThan(0);
      expect(await json("audit", "compactions", "--mode", "prune")).toEqual([]);
      expect(await json("audit", "compactions", "--until", "2001-01-01")).toEqual([]);
      const byMode = await json<{ group: Record<string, string>; compactions: number; tokensReclaimed: number }[]>(
        "audit",
        "totals",
        "--by",
        "mode,summarizerModel",
      );
      expect(byMode).toEqual([
        expect.objectContaining({
          group: { mode: "summary", summarizerModel: "offline-extractive" },
          compactions: 1,
          tokensReclaimed: listed[0]?.tokensReclaimed,
        }),
      ]);
      expect(await json("audit", "failures")).toEqual([]);
    });

    it("follows a message to the compaction that superseded it, and a summary back to what it replaced", async () => {
      const [trail] = await json<
        { supersededBy?: { compaction: { compactionId: string }; replacements: { messageId: string }[] } }[]
      >("audit", "message", compaction.targets[0] ?? "");
      expect(trail?.supersededBy?.compaction.compactionId).toBe(compaction.compactionId);
      expect(trail?.supersededBy?.replacements.map((r) => r.messageId)).toEqual([compaction.summaryId]);
      const [back] = await json<{ writtenBy?: { targets: string[] } }[]>("audit", "message", compaction.summaryId);
      expect(back?.writtenBy?.targets).toEqual(compaction.targets);
      const [byId] = await json<{ writtenBy?: { targets: string[] } }[]>(
        "audit",
        "compaction",
        compaction.compactionId,
      );
      expect(byId?.writtenBy?.targets).toEqual(compaction.targets);
    });

    it("shows the view before the compaction at its seq, lineage, and a rebuild equal to the live models", async () => {
      const [listed] = await json<{ seq: number }[]>("audit", "compactions");
      const seq = listed?.seq ?? 0;
      const before = await json<{ seq: number; view: { messages: { id: string }[] } }>(
        "audit",
        "view",
        session,
        "--seq",
        String(seq - 1),
      );
      const after = await json<{ seq: number; view: { messages: { id: string }[] } }>(
        "audit",
        "view",
        session,
        "--seq",
        String(seq),
      );
      expect(before.view.messages.map((m) => m.id)).toEqual(expect.arrayContaining(compaction.targets));
      expect(after.view.messages.map((m) => m.id)).not.toContain(compaction.targets[0]);
      expect(after.view.messages.map((m) => m.id)).toContain(compaction.summaryId);
      const lineage = await json<{ tip: string; ancestors: unknown[] }>("audit", "lineage", session);
      expect(lineage).toMatchObject({ tip: session, ancestors: [] });
      expect(await json("audit", "lineage")).toEqual([
        expect.objectContaining({ rootSessionId: session, sessions: 1, tip: session }),
      ]);
      const rebuilt = await cli("audit", "rebuild", "--check");
      expect(rebuilt.code).toBe(0);
      expect(JSON.parse(rebuilt.stdout)).toMatchObject({ equal: true, replaced: false });
      expect(rebuilt.stderr).toBe(""); // not a terminal: no progress unless asked
      const shown = await cli("audit", "rebuild", "--check", "--progress");
      expect(shown.stderr).toMatch(/^rebuilding audit read models: \d+ events\n/);
      expect(shown.stderr).not.toContain("\r");
      const text = await runPalimpsest(["--db", db.url, "audit", "rebuild"]);
      expect(text.stdout).toMatch(/equal the live ones; the live models were replaced/);
    });

    it("rejects bad input with stable codes and exit 2 (usage) or 1 (not found)", async () => {
      const badGroup = await cli("audit", "totals", "--by", "colour");
      expect([badGroup.code, jsonError(badGroup).code]).toEqual([2, "VALIDATION"]);
      const badTime = await cli("audit", "compactions", "--since", "someday");
      expect([badTime.code, jsonError(badTime).code]).toEqual([2, "VALIDATION"]);
      const twoPoints = await cli("audit", "view", session, "--seq", "3", "--turn", "1");
      expect([twoPoints.code, jsonError(twoPoints).code]).toEqual([2, "VALIDATION"]);
      const negative = await cli("audit", "view", session, "--seq", "-1");
      expect([negative.code, jsonError(negative).code]).toEqual([2, "VALIDATION"]);
      const tooFar = await cli("audit", "view", session, "--seq", "100000");
      expect([tooFar.code, jsonError(tooFar).code]).toEqual([1, "NOT_FOUND"]);
      const badWait = await cli("audit", "--visibility-wait-ms", "-5", "compactions");
      expect([badWait.code, jsonError(badWait).code]).toEqual([2, "VALIDATION"]);
      expect((await cli("audit", "--visibility-wait-ms", "0", "compactions")).code).toBe(0);
      const unknown = await cli("audit", "lineage", "zzzz");
      expect([unknown.code, jsonError(unknown).code]).toEqual([1, "NOT_FOUND"]);
    });
  });
}
