#!/usr/bin/env node
// Runs the compiled CLI (dist/bin/, the bundle scripts/bundle-bin.mjs makes after `tsc -b`) in this process.
// In-process rather than as a child process: a Ctrl-C reaches the CLI itself, which stops at a clean point.
// Inside the workspace, `pnpm palimpsest` runs the TypeScript sources instead (through tsx), with no build.
import { runCli } from "../dist/bin/cli.mjs";

process.exitCode = await runCli(process.argv.slice(2));
