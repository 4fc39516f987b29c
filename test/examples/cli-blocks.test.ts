import { buildProgram } from "@palimpsest/cli";
import { describe, expect, it } from "vitest";
import { documentationFiles, fencedBlocks } from "./markdown-files.ts";

/** A command of the CLI (commander's, which the root package does not depend on by name). */
type Command = ReturnType<typeof buildProgram>;

const SHELL_LANGS = new Set(["sh", "bash", "shell", "console"]);

/** A `palimpsest …` command line shown in a shell block, with where it is shown. */
interface ShownCommand {
  where: string;
  words: string[];
}

/** The `palimpsest …` invocations of the documentation's shell blocks (`npx palimpsest`, `pnpm palimpsest` too). */
function shownCommands(): ShownCommand[] {
  return documentationFiles()
    .flatMap(fencedBlocks)
    .filter((b) => SHELL_LANGS.has(b.lang))
    .flatMap((block) =>
      block.text.split("\n").flatMap((line, i) => {
        const code = line.replace(/^\$ /, "").replace(/\s#.*$/, "");
        const match = /(?:^|[\s;&|(])(?:(?:npx|pnpm) )?palimpsest((?: \S+)*)/.exec(code);
        if (match === null) return [];
        return [{ where: `${block.file}:${block.line + i + 1}`, words: (match[1] ?? "").trim().split(/\s+/) }];
      }),
    );
}

/** What is wrong with a shown command: an unknown subcommand, or a `--flag` its command and parents lack. */
function problems(words: readonly string[]): string[] {
  let command: Command = buildProgram();
  const flags = new Set(["--help", ...command.options.map((o) => o.long)]);
  const found: string[] = [];
  const positional = words.filter((w) => !w.startsWith("-") && !w.startsWith("["));
  for (const word of positional) {
    if (command.commands.length === 0) break;
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub === undefined) {
      found.push(`${command.name()} has no subcommand ${word}`);
      break;
    }
    command = sub;
    for (const option of command.options) flags.add(option.long);
  }
  for (const [flag] of words.join(" ").matchAll(/--[a-z][a-z0-9-]*/g)) {
    if (!flags.has(flag)) found.push(`${command.name()} has no option ${flag}`);
  }
  return found;
}

describe("the documentation's palimpsest commands", () => {
  const commands = shownCommands();

  it("shows commands to check", () => {
    expect(commands.length).toBeGreaterThan(10);
  });

  for (const { where, words } of commands) {
    it(`${where}: palimpsest ${words.join(" ")}`, () => {
      expect(problems(words)).toEqual([]);
    });
  }
});
