import { readFileSync } from "node:fs";
import { copyFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import {
  type CliDatabase,
  type CliResult,
  postgresCliDatabase,
  ROOT,
  runPalimpsest,
  spawnPalimpsest,
  sqliteCliDatabase,
  startPalimpsest,
} from "./harness.ts";

const DEMO = join(ROOT, "examples/demo-session.jsonl");
const DEMO_MESSAGES = readFileSync(DEMO, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as unknown);
const RACES = 3;
const TASKS = 60;

const server = postgresServer();
const databases: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

interface ImportRow {
  sessionId: string;
  messages: number;
  created: boolean;
}
const rows = (r: CliResult) => JSON.parse(r.stdout) as ImportRow[];

/** Every session of the database with its live message count and how many distinct message ids it holds. */
async function storedSessions(url: string): Promise<{ id: string; live: number; distinct: number }[]> {
  const runtime = await openPalimpsest({ url });
  try {
    const out = [];
    for (const { sessionId } of await runtime.sessions()) {
      const events = await runtime.store.readStream(sessionId);
      const ids = events.flatMap((e) => (e.type === "message.appended" ? [e.data.message.id] : []));
      out.push({
        id: sessionId,
        live: (await runtime.resume(sessionId)).view().messages.length,
        distinct: new Set(ids).size,
      });
    }
    return out.sort((a, b) => a.id.localeCompare(b.id));
  } finally {
    await runtime.close();
  }
}

for (const [name, make] of databases) {
  describe.skipIf(make === undefined)(`palimpsest import under races and interrupts (${name})`, () => {
    let db: CliDatabase;
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      await storedSessions(db.url); // creates and migrates the database: the races below are the imports'
    });
    afterAll(() => db.dispose());

    it(`two processes importing the same file at once both succeed and name the same session (${RACES} races)`, async () => {
      for (let race = 0; race < RACES; race++) {
        const file = join(db.dir, `race-${race}.jsonl`);
        await copyFile(DEMO, file);
        const args = ["--db", db.url, "--json", "import", file, "--format", "openai"];
        const [a, b] = await Promise.all([spawnPalimpsest(args), spawnPalimpsest(args)]);
        expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
        const [ra, rb] = [rows(a), rows(b)];
        expect(ra.map((r) => r.sessionId)).toEqual(rb.map((r) => r.sessionId));
        expect([ra[0]?.created, rb[0]?.created].filter(Boolean)).toHaveLength(1); // exactly one wrote it
      }
      const stored = await storedSessions(db.url);
      expect(stored).toHaveLength(RACES);
      for (const s of stored) expect(s).toMatchObject({ live: 55, distinct: 55 });
    });

    it("Ctrl-C stops between sessions, says how far it got, leaves no half session, and a rerun finishes", async () => {
      const file = join(db.dir, "tau-results.json");
      const tasks = Array.from({ length: TASKS }, (_, i) => ({ task_id: i, trial: 0, reward: 1, traj: DEMO_MESSAGES }));
      await writeFile(file, JSON.stringify(tasks));
      const before = (await storedSessions(db.url)).length;
      const args = ["--db", db.url, "--json", "import", file, "--progress"]; // stderr is a pipe: progress on request
      const running = startPalimpsest(args);
      await running.stderrLine(/^writing: /);
      running.child.kill("SIGINT");
      const cut = await running.result;
      expect(cut.code, cut.stderr).toBe(130);
      const done = rows(cut).length;
      expect(done).toBeGreaterThan(0);
      expect(done).toBeLessThan(TASKS);
      expect(cut.stderr).toContain(`imported ${done} of ${TASKS} sessions; ${TASKS - done} not imported yet`);
      const partial = await storedSessions(db.url);
      expect(partial).toHaveLength(before + done);
      for (const s of partial) expect(s.live).toBe(55); // every session listed is whole
      const rerun = await runPalimpsest(args);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rows(rerun).filter((r) => r.created)).toHaveLength(TASKS - done);
      const all = await storedSessions(db.url);
      expect(all).toHaveLength(before + TASKS);
      for (const s of all) expect(s).toMatchObject({ live: 55, distinct: 55 });
    });
  });
}
