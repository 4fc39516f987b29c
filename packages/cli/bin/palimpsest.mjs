#!/usr/bin/env node
// Runs the compiled CLI (dist/bin/, the bundle scripts/bundle-bin.mjs makes after `tsc -b`) in this process.
// In-process rather than as a child process: a Ctrl-C reaches the CLI itself, which stops at a clean point.
// Inside the workspace it runs the same way: the root `prepare` script bundles the CLI on `pnpm install`.
import { runCli } from "../dist/bin/cli.mjs";

process.exitCode = await runCli(process.argv.slice(2));
