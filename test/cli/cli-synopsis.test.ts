/**
 * docs/cli.md's synopses against the commands as registered: every option `--help` lists appears in its
 * command's synopsis (the shell blocks of the section that first shows the command), and every global
 * option in "Global options". (test/examples/cli-blocks.test.ts checks the other way: that what the
 * documentation shows exists.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMAND_LOADERS } from "../../packages/cli/src/commands/command-loaders.ts";
import { runCli } from "../../packages/cli/src/main.ts";
import { ROOT } from "./harness.ts";

/** Command groups whose subcommands' options their own pages list (docs/cli.md points there). */
const DOCUMENTED_ELSEWHERE = new Set(["audit", "handoff"]);

/** The long flags in a piece of text. */
const flagsIn = (text: string): string[] => [...text.matchAll(/--[a-z][a-z0-9-]*/g)].map((m) => m[0]);

/** docs/cli.md's sections (## headings) with their text. */
function sections(): { heading: string; text: string }[] {
  const markdown = readFileSync(join(ROOT, "docs/cli.md"), "utf8");
  return markdown.split(/^(?=## )/m).map((part) => ({ heading: part.split("\n")[0] ?? "", text: part }));
}

/**
 * Each command's synopsis: its `palimpsest <command> …` lines (and their indented continuations) in the
 * `sh` blocks of the first section that shows it. A later section's blocks are examples, not synopses.
 */
function synopses(): Map<string, string> {
  const found = new Map<string, { heading: string; lines: string[] }>();
  for (const { heading, text } of sections()) {
    for (const [, block = ""] of text.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
      let command: string | undefined;
      for (const line of block.split("\n")) {
        const start = /^palimpsest ([a-z-]+)/.exec(line);
        if (start !== null) command = start[1];
        else if (!/^\s/.test(line)) command = undefined;
        if (command === undefined) continue;
        const known = found.get(command) ?? { heading, lines: [] };
        if (known.heading === heading) known.lines.push(line);
        found.set(command, known);
      }
    }
  }
  return new Map([...found].map(([command, { lines }]) => [command, lines.join("\n")]));
}

/** What `palimpsest <args…> --help` prints (in this process). */
async function help(args: readonly string[]): Promise<string> {
  const text: string[] = [];
  const code = await runCli([...args, "--help"], { stdout: (t) => text.push(t), stderr: () => {}, env: {}, cwd: ROOT });
  expect(code).toBe(0);
  return text.join("");
}

/** The long flags of the Options section of a help text (without --help). */
function optionFlags(helpText: string): string[] {
  const options = /^Options:\n([\s\S]*?)(?:^\S|$(?![\s\S]))/m.exec(helpText)?.[1] ?? "";
  const terms = options.split("\n").flatMap((line) => /^ {2}(\S.*?)(?: {2,}|$)/.exec(line)?.[1] ?? []);
  return terms.flatMap(flagsIn).filter((flag) => flag !== "--help");
}

describe("docs/cli.md's synopses", () => {
  it("name every option of every command, as registered", async () => {
    const shown = synopses();
    const missing: string[] = [];
    for (const command of Object.keys(COMMAND_LOADERS)) {
      if (DOCUMENTED_ELSEWHERE.has(command)) continue;
      const synopsis = shown.get(command);
      if (synopsis === undefined) {
        missing.push(`palimpsest ${command}: no synopsis`);
        continue;
      }
      const listed = new Set(flagsIn(synopsis));
      for (const flag of optionFlags(await help([command]))) {
        if (!listed.has(flag)) missing.push(`${command} ${flag}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("name every global option in Global options", async () => {
    const global = sections().find((s) => s.heading === "## Global options")?.text ?? "";
    const helpFlags = optionFlags(await help([]));
    expect(helpFlags.length).toBeGreaterThan(3);
    expect(helpFlags.filter((flag) => !flagsIn(global).includes(flag))).toEqual([]);
  });

  it("are read whole: a command's continuation lines and its later blocks in the same section count", async () => {
    expect(flagsIn(synopses().get("replay") ?? "")).toContain("--lost-fact-usd");
    expect(synopses().get("maintain")).toContain("--partition");
    expect(optionFlags(await help(["replay"]))).toContain("--compare");
  });
});
