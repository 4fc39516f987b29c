/**
 * A summarizer's prompt-cache reads and writes reach the records, end to end: an AiSdkSummarizer whose
 * model reports the cache's share of the input (the AI SDK's `inputTokenDetails`) compacts a session on a
 * SQLite file and on PostgreSQL; the compaction event's stats, the audit read model's row and totals (and
 * a rebuild from the log), and the CLI's audit output (text and JSON) carry them. A compaction by the
 * offline summarizer, which reports no usage, leaves them null; one whose provider reported its input but
 * no cache figures (as every compaction projected before migration 0020) leaves them null and stays out of
 * the cached share of its group's totals.
 */
import { AiSdkSummarizer } from "@palimpsest/ai-sdk";
import { OfflineSummarizer, type Summarizer } from "@palimpsest/core";
import { compact, openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, postgresCliDatabase, runPalimpsest, sqliteCliDatabase } from "../cli/harness.ts";
import { turn } from "../precompact/precompact-fixtures.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { cachedSummaryModel, UNCOUNTED_USAGE, CACHED_USAGE as USAGE } from "./cached-summary-model.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

/** A new session of six turns with tool output, compacted by `summarizer` (forced); returns the session's id. */
async function compactedSession(runtime: Palimpsest, summarizer: Summarizer): Promise<string> {
  const session = await runtime.startSession({ contextWindow: 64_000 });
  for (let n = 0; n < 6; n++) await turn(session, n);
  const outcome = await compact(session, { policy: "summary", summarizer, force: true });
  expect(outcome.status).toBe("compacted");
  return session.id;
}

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`a summarizer's prompt-cache reads and writes in the records (${name})`, () => {
    let db: CliDatabase;
    let runtime: Palimpsest;
    let cached: string;
    let offline: string;
    let uncounted: string;
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      runtime = await openPalimpsest({ url: db.url });
      cached = await compactedSession(runtime, new AiSdkSummarizer({ model: cachedSummaryModel() }));
      offline = await compactedSession(runtime, new OfflineSummarizer());
      const uncountedModel = cachedSummaryModel([UNCOUNTED_USAGE], "uncounted-model");
      uncounted = await compactedSession(runtime, new AiSdkSummarizer({ model: uncountedModel }));
    });
    afterAll(async () => {
      await runtime?.close();
      await db?.dispose();
    });

    it("the compaction event's stats carry the summary's cache reads and writes, as stored", async () => {
      const stats = async (sessionId: string) =>
        (await runtime.store.readStream(sessionId)).flatMap((e) =>
          e.type === "messages.superseded" ? [e.data.stats] : [],
        );
      expect(await stats(cached)).toEqual([
        expect.objectContaining({
          auxTokensIn: USAGE.inputTokens,
          auxTokensOut: USAGE.outputTokens,
          auxTokensCacheRead: USAGE.cacheRead,
          auxTokensCacheWrite: USAGE.cacheWrite,
        }),
      ]);
      const [plain] = await stats(offline);
      expect(plain).not.toHaveProperty("auxTokensCacheRead");
      expect(plain).not.toHaveProperty("auxTokensCacheWrite");
    });

    it("the audit row and totals hold them (null when not reported), and a rebuild from the log equals them", async () => {
      const audit = new AuditReadModels(runtime.store);
      const rows = await audit.compactions({});
      const bySession = new Map(rows.map((c) => [c.sessionId, c]));
      expect(bySession.get(cached)).toMatchObject({
        auxTokensIn: USAGE.inputTokens,
        auxTokensCacheRead: USAGE.cacheRead,
        auxTokensCacheWrite: USAGE.cacheWrite,
      });
      expect(bySession.get(offline)).toMatchObject({ auxTokensCacheRead: null, auxTokensCacheWrite: null });
      expect(bySession.get(uncounted)).toMatchObject({
        auxTokensIn: UNCOUNTED_USAGE.inputTokens,
        auxTokensCacheRead: null,
        auxTokensCacheWrite: null,
      });
      const [totals] = await audit.compactionTotals({}, []);
      expect(totals).toMatchObject({
        compactions: 3,
        auxTokensIn: USAGE.inputTokens + UNCOUNTED_USAGE.inputTokens,
        auxTokensCacheRead: USAGE.cacheRead,
        auxTokensInWithCacheRead: USAGE.inputTokens, // the cached session's input only
        auxTokensCacheWrite: 100,
      });
      const [offlineTotals] = await audit.compactionTotals({ sessionId: offline }, []);
      expect(offlineTotals).toMatchObject({
        auxTokensCacheRead: null,
        auxTokensInWithCacheRead: null,
        auxTokensCacheWrite: null,
      });
      expect(await audit.rebuild({ checkOnly: true })).toMatchObject({ equal: true, differenceCount: 0 });
    });

    it("the CLI's audit output shows the cached share, and its JSON holds the counts", async () => {
      const cli = (...args: string[]) => runPalimpsest(["--db", db.url, ...args]);
      const listed = await cli("audit", "compactions");
      expect(listed.code).toBe(0);
      // One line per compaction, told apart by the summarizer (the sessions' ids share their first characters).
      const line = (model: string) => listed.stdout.split("\n").find((l) => l.includes(model)) ?? "";
      expect(line("mock-model-id")).toContain("5000 (96% cached) / 60");
      expect(line("offline")).not.toContain("cached");
      expect(line("uncounted-model")).toContain("100000 / 400");
      // The share is of the input of the compactions that recorded the cache's reads: 4,800 of 5,000.
      const totals = await cli("audit", "totals");
      expect(totals.stdout).toContain("105000 (96% cached) / 460");

      const json = await cli("--json", "audit", "compactions", "--session", cached);
      expect(JSON.parse(json.stdout)).toEqual([
        expect.objectContaining({ auxTokensCacheRead: USAGE.cacheRead, auxTokensCacheWrite: USAGE.cacheWrite }),
      ]);
      const jsonTotals = await cli("--json", "audit", "totals", "--session", cached);
      expect(JSON.parse(jsonTotals.stdout)).toEqual([
        expect.objectContaining({
          auxTokensCacheRead: USAGE.cacheRead,
          auxTokensInWithCacheRead: USAGE.inputTokens,
          auxTokensCacheWrite: USAGE.cacheWrite,
        }),
      ]);
    });
  });
}
