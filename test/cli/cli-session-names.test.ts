import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseTranscript } from "@palimpsest/core";
import { importSessions, openPalimpsest } from "@palimpsest/runtime";
import { importedSessionId } from "@palimpsest/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { HAVE_TRANSCRIPTS, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { type CliDatabase, jsonError, postgresCliDatabase, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

const SPOTTER = join(TRANSCRIPTS_DIR, "claude-code/spotter");
const MAIN = "4d5611e5-241a-462a-8d15-5122611a9569";
const AGENT = "a2898e3";
const MAIN_ID = importedSessionId("claude-code", MAIN);
const AGENT_ID = importedSessionId("claude-code", AGENT);

/** What `sessions --json` prints of each session. */
interface SessionsJson {
  sessions: { sessionId: string; name: string }[];
}

for (const [name, make] of databases) {
  describe.skipIf(make === undefined || !HAVE_TRANSCRIPTS)(`palimpsest commands take session names (${name})`, () => {
    let db: CliDatabase;
    const shared = `shared-${randomUUID()}`;
    const lone = `lone-${randomUUID()}`;
    let twins: string[] = [];
    let loneId = "";
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, "--json", ...args]);

    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      const runtime = await openPalimpsest({ url: db.url });
      try {
        const sessions = [`${MAIN}.jsonl`, `${MAIN}/subagents/agent-${AGENT}.jsonl`].flatMap((file) =>
          parseTranscript(readFileSync(join(SPOTTER, file), "utf8"), { fileName: file, format: "claude-code" }),
        );
        await importSessions(runtime, sessions);
        // Two sessions whose starts carry the same external id, as two SDK processes could record it.
        for (const format of ["claude-agent-sdk", "another-sdk"]) {
          twins.push((await runtime.startSession({ source: { format, externalId: shared } })).id);
        }
        twins = twins.sort();
        loneId = (await runtime.startSession({ source: { format: "claude-agent-sdk", externalId: lone } })).id;
      } finally {
        await runtime.close();
      }
    });
    afterAll(() => db.dispose());

    it("view, history and audit take a Claude Code session id and a subagent's agent id", async () => {
      const [main, agent, history, lineage, asOf] = await Promise.all([
        cli("view", MAIN),
        cli("view", AGENT),
        cli("history", MAIN),
        cli("audit", "lineage", AGENT),
        cli("audit", "view", MAIN, "--seq", "1"),
      ]);
      for (const result of [main, agent, history, lineage, asOf]) expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(main.stdout)).toMatchObject({ sessionId: MAIN_ID });
      expect(JSON.parse(agent.stdout)).toMatchObject({ sessionId: AGENT_ID });
      expect((JSON.parse(main.stdout) as { messages: unknown[] }).messages.length).toBeGreaterThan(100);
      expect(lineage.stdout).toContain(MAIN_ID);
      expect(lineage.stdout).toContain(AGENT_ID);
    });

    it("refuses a name two sessions share, listing them, and changes nothing", async () => {
      const [view, erase] = await Promise.all([cli("view", shared), cli("erase", shared, "--yes")]);
      for (const result of [view, erase]) {
        expect(result.code).toBe(2);
        expect(jsonError(result)).toMatchObject({
          code: "VALIDATION",
          details: { issues: twins.map((message) => ({ code: "custom", message })) },
        });
        expect(jsonError(result).message).toContain(shared);
      }
      for (const id of twins) expect(JSON.parse((await cli("view", id)).stdout)).toMatchObject({ sessionId: id });
      const unknown = await cli("view", `no-such-${randomUUID()}`);
      expect(unknown.code).toBe(1);
      expect(jsonError(unknown)).toMatchObject({ code: "NOT_FOUND", details: { kind: "session" } });
    });

    it("sessions prints each session's name (JSON `name`, a text column)", async () => {
      const listed = await cli("sessions");
      expect(listed.code, listed.stderr).toBe(0);
      const names = new Map((JSON.parse(listed.stdout) as SessionsJson).sessions.map((s) => [s.sessionId, s.name]));
      expect(names.get(MAIN_ID)).toBe(MAIN);
      expect(names.get(AGENT_ID)).toBe(AGENT);
      for (const id of twins) expect(names.get(id)).toBe(shared);
      const text = await runPalimpsest(["--db", db.url, "sessions"]);
      const lines = text.stdout.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^session\s+name\s+parent\s+live msgs\s+live tokens\s+compactions\s+title$/);
      expect(lines.find((l) => l.startsWith(MAIN_ID))?.split(/\s+/)[1]).toBe(MAIN);
    });

    it("erase takes a unique name (never a prefix), and the erased session keeps it", async () => {
      const prefix = await cli("erase", loneId.slice(0, 12), "--yes");
      expect(jsonError(prefix)).toMatchObject({ code: "NOT_FOUND" });
      const erased = await cli("erase", lone, "--yes");
      expect(erased.code, erased.stderr).toBe(0);
      expect(JSON.parse(erased.stdout)).toMatchObject({ sessionId: loneId, erased: true });
      expect(JSON.parse((await cli("view", lone)).stdout)).toMatchObject({ sessionId: loneId });
    });
  });
}
