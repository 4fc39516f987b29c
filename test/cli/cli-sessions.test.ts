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

/** What `sessions --json` prints. */
interface SessionsJson {
  sessions: { sessionId: string; events: number; liveMessages: number }[];
  next: string | null;
}

const SESSIONS = 7;

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest sessions, a page at a time (${name})`, () => {
    let db: CliDatabase;
    let catalogue: string[] = [];
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, ...args]);
    const page = async (...args: string[]): Promise<SessionsJson> => {
      const r = await cli("--json", "sessions", ...args);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as SessionsJson;
    };

    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      const store = await openEventStore(db.url);
      try {
        for (let i = 0; i < SESSIONS; i++) {
          const messages = Array.from({ length: i }, (_, m) => userMessage(`m${m}`, `message ${m}`));
          await store.append(newSessionId(`page-${i}`), [started(), ...messages], { expectedVersion: "no-stream" });
        }
        catalogue = (await store.listSessions()).map((s) => s.sessionId);
      } finally {
        await store.close();
      }
    });
    afterAll(() => db.dispose());

    it("pages with --limit and --after: every session once, newest first, next null on the last page", async () => {
      const seen: SessionsJson["sessions"] = [];
      const sizes: number[] = [];
      let after: string | null = null;
      do {
        const p: SessionsJson = await page("--limit", "3", ...(after === null ? [] : ["--after", after]));
        sizes.push(p.sessions.length);
        seen.push(...p.sessions);
        after = p.next;
      } while (after !== null);
      expect(sizes).toEqual([3, 3, 1]);
      expect(seen.map((s) => s.sessionId)).toEqual(catalogue);
      for (const s of seen) expect(s.events).toBe(s.liveMessages + 1);
      const all = await page();
      expect(all.next).toBeNull();
      expect(all.sessions).toEqual(seen);
    });

    it("ends a page with more after it with the command that prints the next one", async () => {
      const first = await page("--limit", "2");
      const text = await cli("sessions", "--limit", "2");
      expect(text.code, text.stderr).toBe(0);
      const lines = text.stdout.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^session\s+name\s+parent\s+live msgs\s+live tokens\s+compactions\s+title$/);
      expect(lines.slice(1, 3).map((l) => l.split(/\s+/)[0])).toEqual(catalogue.slice(0, 2));
      expect(lines[3]).toBe(`more sessions: palimpsest sessions --limit 2 --after ${first.next}`);
      const last = await cli("sessions", "--limit", String(SESSIONS));
      expect(last.stdout).not.toContain("more sessions");
    });

    it("rejects a bad --limit or --after as a usage error (VALIDATION, exit 2)", async () => {
      for (const args of [
        ["--limit", "0"],
        ["--limit", "1001"],
        ["--limit", "ten"],
        ["--after", "not-a-cursor"],
      ]) {
        const r = await cli("--json", "sessions", ...args);
        expect([r.code, jsonError(r).code], args.join(" ")).toEqual([2, "VALIDATION"]);
      }
    });
  });
}
