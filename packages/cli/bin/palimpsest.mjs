#!/usr/bin/env node
// Runs the TypeScript CLI in this process through tsx's loader, so the workspace needs no build step.
// In-process rather than under `tsx` (which runs a second process and kills it when a Ctrl-C is not
// acknowledged within 30 ms): a Ctrl-C reaches the CLI itself, which stops at a clean point.
import { register } from "tsx/esm/api";

register();
const { runCli } = await import(new URL("../src/main.ts", import.meta.url).href);
process.exitCode = await runCli(process.argv.slice(2));
