/**
 * Vitest global setup: builds the workspace once before the run (`tsc -b`, then the bin's bundle), so the
 * tests that spawn the `palimpsest` bin run the compiled JavaScript a user installs, never the sources.
 * Incremental: with an up-to-date dist it costs a few seconds.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./installed-palimpsest.ts";

export default function setup(): void {
  const started = Date.now();
  // A fresh clone has no dist/: the first build takes a minute or two, so say what is happening.
  console.log("building the workspace for the bin's tests (tsc -b tsconfig.build.json, then the bin's bundle)…");
  execFileSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-b", "tsconfig.build.json"], {
    cwd: ROOT,
    stdio: "inherit",
  });
  execFileSync(process.execPath, [join(ROOT, "packages/cli/scripts/bundle-bin.mjs")], { cwd: ROOT, stdio: "inherit" });
  console.log(`built the workspace for the bin's tests in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
