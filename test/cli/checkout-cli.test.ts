/**
 * The checkout's `npx palimpsest` (README, "Working on this repository"): after `pnpm install`, whose root
 * `prepare` script bundles the CLI, the workspace's `palimpsest` bin runs the bundle, and an error is the
 * Palimpsest error alone on stderr (no package manager's lifecycle lines after it).
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, run, runOk, userEnv } from "../support/installed-palimpsest.ts";

/** A package.json's fields the test reads. */
interface Manifest {
  scripts?: Record<string, string>;
  devDependencies?: Record<string, string>;
  bin?: Record<string, string>;
}

const readManifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
const ROOT_MANIFEST = readManifest(ROOT);

/**
 * Where each of the root's dependencies with a `palimpsest` bin (what `npx palimpsest` runs in the checkout)
 * loads the CLI from: its bin, then, while the file is a script (`#!`), the module its first import names,
 * resolved as Node resolves it (a package's `exports`, or a path beside the file), symlinks followed.
 */
function binTargets(): string[] {
  const targets: string[] = [];
  for (const name of Object.keys(ROOT_MANIFEST.devDependencies ?? {})) {
    const dir = join(ROOT, "node_modules", name);
    const bin = readManifest(dir).bin?.palimpsest;
    if (bin === undefined) continue;
    let file = join(dir, bin);
    for (let text = readFileSync(file, "utf8"); text.startsWith("#!"); text = readFileSync(file, "utf8")) {
      const specifier = /^import\s+(?:[^"';]+\s+from\s+)?["']([^"']+)["']/m.exec(text)?.[1];
      if (specifier === undefined) throw new Error(`${file} imports nothing`);
      file = specifier.startsWith(".") ? resolve(dirname(file), specifier) : createRequire(file).resolve(specifier);
    }
    targets.push(realpathSync(file));
  }
  return targets;
}

describe("the checkout's palimpsest command", () => {
  let cwd = "";
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), "palimpsest-checkout-"));
  });
  afterAll(async () => rm(cwd, { recursive: true, force: true }));

  it("is the bundle the root prepare script (which pnpm install runs) writes, the same step as build's", async () => {
    const { prepare = "", build = "" } = ROOT_MANIFEST.scripts ?? {};
    expect(build.split(" && ")).toContain(prepare);
    const [entry, ...others] = binTargets();
    expect(entry).toBeDefined();
    for (const other of others) expect(other).toBe(entry);
    // The bundle script writes each file anew and renames it over the old one: a new inode means this run
    // wrote the very file the bin loads.
    const before = statSync(entry ?? "").ino;
    await runOk("sh", ["-c", prepare], { cwd: ROOT });
    expect(statSync(entry ?? "").ino).not.toBe(before);
    const help = await runOk("npx", ["palimpsest", "--help"], { cwd: ROOT });
    expect(help.stdout).toMatch(/^Usage: palimpsest /);
    expect(help.stderr).toBe("");
  }, 120_000);

  it("prints an error as the Palimpsest error alone on stderr, from the checkout's npx palimpsest", async () => {
    const db = join(cwd, "missing.db");
    const result = await run("npx", ["palimpsest", "--db", db, "sessions"], { cwd: ROOT, env: userEnv() });
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `error [NOT_FOUND] file not found: ${db}; no database there yet: \`palimpsest import <transcript>\` creates it, or name another with --db\n`,
    );
    expect(result.code).toBe(1);
  }, 60_000);
});
