/**
 * The README's demo (`npx -y pnpm@12.4.2 demo`, scripts/demo.ts) in an empty folder: the short default
 * imports, compacts and checks a fresh process's view against a replay; `--tour` adds the audit read models
 * and the HTML report. Run as the README's command runs it (tsx on the script, the bundled CLI in process).
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, run, userEnv } from "../support/installed-palimpsest.ts";

const DEMO = [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "scripts/demo.ts")];
const SAME = /Resumed in a fresh process: the active view \(\d+ messages\) equals a full replay of the log\.\n/;

describe("the demo", () => {
  let cwd = "";
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), "palimpsest-demo-"));
  });
  afterAll(async () => rm(cwd, { recursive: true, force: true }));

  it("runs the short demo: import, view, compact, history, expand, and a fresh process's view equals a replay", async () => {
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

  it("runs the tour on the same folder: nothing imported twice, the audit read models and the HTML report", async () => {
    const result = await run(process.execPath, [...DEMO, "--tour"], { cwd, env: userEnv() });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("already imported");
    expect(result.stdout).toContain("The view is already compact");
    for (const command of ["sessions", "audit totals", "audit message", "audit view", "audit rebuild", "report --html"])
      expect(result.stdout).toContain(`$ palimpsest ${command}`);
    expect(result.stdout).toMatch(SAME);
    expect(existsSync(join(cwd, ".palimpsest/demo-report.html"))).toBe(true);
  }, 120_000);
});
