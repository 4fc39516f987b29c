import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, runPalimpsest, sqliteCliDatabase } from "./harness.ts";

/** What an in-process run could leave behind in the test process. */
function processState() {
  return {
    sigint: process.listenerCount("SIGINT"),
    sigterm: process.listenerCount("SIGTERM"),
    exitCode: process.exitCode,
    cwd: process.cwd(),
    env: process.env.PALIMPSEST_DATABASE_URL,
  };
}

describe("palimpsest run in process (runCli with its own IO)", () => {
  let db: CliDatabase;
  beforeAll(async () => {
    db = await sqliteCliDatabase();
  });
  afterAll(() => db.dispose());

  it("writes help and usage errors through its IO, with the bin's exit codes", async () => {
    const help = await runPalimpsest(["--help"]);
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toMatch(/^Usage: palimpsest /);
    for (const name of ["import", "sessions", "view", "history", "expand", "compact", "replay", "report", "audit"]) {
      expect(help.stdout).toMatch(new RegExp(`\\n  ${name} `));
    }
    const sessionsHelp = await runPalimpsest(["sessions", "--help"]);
    expect(sessionsHelp.stdout).toContain("--limit <n>");
    expect(sessionsHelp.stdout).toContain("--after <cursor>");
    const unknown = await runPalimpsest(["sesions"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("(Did you mean sessions?)");
  });

  it("reports usage errors commander finds like every other error: code VALIDATION, exit 2, JSON with --json", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["sessions", "--limit", "0"],
        /option '--limit <n>' argument '0' is invalid\. It must be a whole number from 1 to/,
      ],
      [["fork", "s1", "--turn", "1", "--seq", "2"], /option '--turn <n>' cannot be used with option '--seq <n>'/],
      [["view", "s1", "--format", "gemini"], /argument 'gemini' is invalid\. Allowed choices are openai, anthropic/],
      [["audit", "totals", "--by", "mode,colour"], /Unknown colour: allowed are /],
      [
        ["audit", "view", "s1", "--seq", "1", "--turn", "2"],
        /option '--seq <n>' cannot be used with option '--turn <n>'/,
      ],
    ];
    for (const [args, message] of cases) {
      const text = await runPalimpsest(["--db", ":memory:", ...args]);
      expect(text.code, text.stderr).toBe(2);
      expect(text.stderr).toMatch(/^error \[VALIDATION\] /);
      expect(text.stderr).toMatch(message);
      const json = await runPalimpsest(["--db", ":memory:", "--json", ...args]);
      expect(json.code).toBe(2);
      const { error } = JSON.parse(json.stderr) as { error: { code: string; message: string } };
      expect(error.code).toBe("VALIDATION");
      expect(error.message).toMatch(message);
    }
  });

  it("reads the database URL and relative paths from its IO's env and cwd, and leaves the process as it was", async () => {
    const before = processState();
    const cwd = join(db.dir, "work");
    await mkdir(cwd);
    await writeFile(join(cwd, "tiny.jsonl"), `${JSON.stringify({ role: "user", content: "tiny" })}\n`);
    const env = { PALIMPSEST_DATABASE_URL: "relative/env.db" };
    const imported = await runPalimpsest(["--json", "import", "tiny.jsonl"], { cwd, env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(existsSync(join(cwd, "relative", "env.db"))).toBe(true);
    const listed = await runPalimpsest(["--json", "sessions"], { cwd, env });
    expect((JSON.parse(listed.stdout) as { sessions: unknown[] }).sessions).toHaveLength(1);
    const failed = await runPalimpsest(["--json", "view", "no-such-session"], { cwd, env });
    expect(failed.code).toBe(1);
    expect(processState()).toEqual(before);
  });
});
