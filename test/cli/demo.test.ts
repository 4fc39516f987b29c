/**
 * The README's demo (`npx -y pnpm@12.4.2 demo`, scripts/demo.ts) in an empty folder: the short default
 * imports, compacts and checks a fresh process's view against a replay; `--tour` adds the audit read models
 * and the HTML report; a second run on the same store imports and compacts nothing. Each test has its own
 * folder. Run as the README's command runs it (tsx on the script, the bundled CLI in process).
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, run, userEnv } from "../support/installed-palimpsest.ts";

const DEMO = [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "scripts/demo.ts")];
const SAME = /Resumed in a fresh process: the active view \(\d+ messages\) equals a full replay of the log\.\n/;

describe("the demo", () => {
  const folders: string[] = [];
  /** An empty folder of the test's own, removed after the suite. */
  async function emptyFolder(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "palimpsest-demo-"));
    folders.push(dir);
    return dir;
  }
  afterAll(async () => {
    for (const dir of folders) await rm(dir, { recursive: true, force: true });
  });

  it("runs the short demo: import, view, compact, history, expand, and a fresh process's view equals a replay", async () => {
    const cwd = await emptyFolder();
    const result = await run(process.execPath, DEMO, { cwd, env: userEnv() });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const commands = result.stdout.match(/^\$ palimpsest \S+/gm);
    expect(commands).toEqual([
      "$ palimpsest import",
      "$ palimpsest view",
      "$ palimpsest compact",
      "$ palimpsest history",
      "$ palimpsest expand",
      "$ palimpsest --json",
    ]);
    expect(result.stdout).toMatch(/superseded 37 messages, 28401 → \d+ tokens/);
    expect(result.stdout).toMatch(SAME);
    expect(result.stdout).toContain("demo --tour");
    expect(existsSync(join(cwd, ".palimpsest/demo-report.html"))).toBe(false);
  }, 120_000);

  it("runs the tour in an empty folder (the second import creates nothing; the audit read models, the HTML report), then the demo again there", async () => {
    const cwd = await emptyFolder();
    const tour = await run(process.execPath, [...DEMO, "--tour"], { cwd, env: userEnv() });
    expect(tour.stderr).toBe("");
    expect(tour.code).toBe(0);
    expect(tour.stdout).toMatch(/ created\n/);
    expect(tour.stdout).toContain('"created": false');
    expect(tour.stdout).toMatch(/superseded 37 messages, 28401 → \d+ tokens/);
    for (const command of ["sessions", "audit totals", "audit message", "audit view", "audit rebuild", "report --html"])
      expect(tour.stdout).toContain(`$ palimpsest ${command}`);
    expect(tour.stdout).toMatch(SAME);
    expect(existsSync(join(cwd, ".palimpsest/demo-report.html"))).toBe(true);
    // Run again on the same store: nothing imported twice, nothing left to compact, the same check.
    const again = await run(process.execPath, DEMO, { cwd, env: userEnv() });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("already imported");
    expect(again.stdout).toContain("The view is already compact");
    expect(again.stdout).not.toContain("$ palimpsest compact");
    expect(again.stdout).toMatch(SAME);
  }, 180_000);
});
