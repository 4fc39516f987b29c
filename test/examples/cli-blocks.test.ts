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
        return code.split(/&&|;|\|\|/).flatMap((part) => {
          const command = part.trim().replace(/^([A-Z_]+=\S* )+/, ""); // without leading VAR=value
          const match = /^(?:npx (?:-y )?(?:pnpm(?:@\S+)? )?|pnpm )?palimpsest(?: (.*))?$/.exec(command);
          if (match === null) return [];
          const words = (match[1] ?? "").split(/\s+/).filter((w) => w !== "");
          return [{ where: `${block.file}:${block.line + i + 1}`, words }];
        });
      }),
    );
}

/** What is wrong with a shown command: an unknown subcommand, or a `--flag` its command and parents lack. */
function problems(words: readonly string[]): string[] {
  let command: Command = buildProgram();
  const options = new Map(command.options.map((o) => [o.long ?? "", o]));
  const found: string[] = [];
  let subcommands = true;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    for (const [flag] of word.matchAll(/--[a-z][a-z0-9-]*/g)) {
      if (flag === "--help") continue;
      const option = options.get(flag);
      if (option === undefined) found.push(`${command.name()} has no option ${flag}`);
      // A flag that takes a value, given as `--flag value`: the value is not a subcommand.
      else if (word === flag && (option.required || option.optional)) i++;
    }
    if (word.startsWith("-") || word.startsWith("[") || !subcommands) continue;
    if (command.commands.length === 0) {
      subcommands = false; // the rest are arguments
      continue;
    }
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub === undefined) {
      found.push(`${command.name()} has no subcommand ${word}`);
      break;
    }
    command = sub;
    for (const option of command.options) options.set(option.long ?? "", option);
  }
  return found;
}

describe("the documentation's palimpsest commands", () => {
  const commands = shownCommands();

  it("shows commands to check, and the check catches what does not exist", () => {
    expect(commands.length).toBeGreaterThan(10);
    expect(problems(["--db", "postgres://h/db", "audit", "--visibility-wait-ms", "10", "rebuild", "--check"])).toEqual(
      [],
    );
    expect(problems(["sessions", "--no-such-flag"])).toEqual(["sessions has no option --no-such-flag"]);
    expect(problems(["handoff", "grab"])).toEqual(["handoff has no subcommand grab"]);
  });

  for (const { where, words } of commands) {
    it(`${where}: palimpsest ${words.join(" ")}`, () => {
      expect(problems(words)).toEqual([]);
    });
  }
});
