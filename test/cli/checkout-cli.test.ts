/**
 * The checkout's `npx palimpsest` (README, "Working on this repository"): after `pnpm install`, whose root
 * `prepare` script bundles the CLI, the workspace's `palimpsest` bin runs the bundle, and an error is the
 * Palimpsest error alone on stderr (no package manager's lifecycle lines after it).
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, run, runOk, userEnv } from "../support/installed-palimpsest.ts";

const PREPARE = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> })
  .scripts.prepare;

describe("the checkout's palimpsest command", () => {
  let cwd = "";
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), "palimpsest-checkout-"));
  });
  afterAll(async () => rm(cwd, { recursive: true, force: true }));

  it("is bundled by the root prepare script that pnpm install runs", async () => {
    expect(PREPARE).toBe("node packages/cli/scripts/bundle-bin.mjs");
    await runOk("sh", ["-c", PREPARE ?? ""], { cwd: ROOT });
    const help = await runOk("npx", ["palimpsest", "--help"], { cwd: ROOT });
    expect(help.stdout).toMatch(/^Usage: palimpsest /);
    expect(help.stderr).toBe("");
  }, 120_000);

  it("prints an error as the Palimpsest error alone on stderr, from the checkout's npx palimpsest", async () => {
    const db = join(cwd, "missing.db");
    const result = await run("npx", ["palimpsest", "--db", db, "sessions"], { cwd: ROOT, env: userEnv() });
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`error [NOT_FOUND] file not found: ${db}\n`);
    expect(result.code).toBe(1);
  }, 60_000);
});
