import { runCli } from "@palimpsest/cli";
import { describe, expect, it, vi } from "vitest";
import { documentationFiles, fencedBlocks } from "./markdown-files.ts";

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

/** What `palimpsest <path> --help` lists: its options (and whether each takes a value) and its subcommands. */
interface Help {
  options: Map<string, boolean>;
  subcommands: Set<string>;
}

const helps = new Map<string, Help>();

/** Runs `palimpsest <path…> --help` in this process and reads its Options and Commands sections. */
async function helpOf(path: readonly string[]): Promise<Help> {
  const key = path.join(" ");
  const known = helps.get(key);
  if (known !== undefined) return known;
  let text = "";
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    text += String(chunk);
    return true;
  });
  try {
    expect(await runCli([...path, "--help"])).toBe(0);
  } finally {
    write.mockRestore();
  }
  const help: Help = { options: new Map(), subcommands: new Set() };
  let section = "";
  for (const line of text.split("\n")) {
    if (/^\S/.test(line)) section = line;
    const term = /^ {2}(\S.*?)(?: {2,}|$)/.exec(line)?.[1];
    if (term === undefined) continue;
    if (section.startsWith("Options:")) {
      for (const [flag] of term.matchAll(/--[a-z][a-z0-9-]*/g)) help.options.set(flag, /[<[]/.test(term));
    } else if (section.startsWith("Commands:")) {
      help.subcommands.add(term.split(/[ |]/)[0] ?? "");
    }
  }
  helps.set(key, help);
  return help;
}

/** What is wrong with a shown command: an unknown subcommand, or a `--flag` its command and parents lack. */
async function problems(words: readonly string[]): Promise<string[]> {
  const path: string[] = [];
  let help = await helpOf(path);
  const options = new Map(help.options);
  const found: string[] = [];
  let subcommands = true;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? "";
    const name = ["palimpsest", ...path].join(" ");
    for (const [flag] of word.matchAll(/--[a-z][a-z0-9-]*/g)) {
      const takesValue = options.get(flag);
      if (takesValue === undefined) found.push(`${name} has no option ${flag}`);
      // A flag that takes a value, given as `--flag value`: the value is not a subcommand.
      else if (word === flag && takesValue) i++;
    }
    if (word.startsWith("-") || word.startsWith("[") || !subcommands) continue;
    const subs = [...help.subcommands].filter((c) => c !== "help");
    if (subs.length === 0) {
      subcommands = false; // the rest are arguments
      continue;
    }
    if (!subs.includes(word)) {
      found.push(`${name} has no subcommand ${word}`);
      break;
    }
    path.push(word);
    help = await helpOf(path);
    for (const [flag, takesValue] of help.options) options.set(flag, takesValue);
  }
  return found;
}

describe("the documentation's palimpsest commands", () => {
  const commands = shownCommands();

  it("shows commands to check, and the check catches what does not exist", async () => {
    expect(commands.length).toBeGreaterThan(10);
    const valid = ["--db", "postgres://h/db", "audit", "--visibility-wait-ms", "10", "rebuild", "--check"];
    expect(await problems(valid)).toEqual([]);
    expect(await problems(["sessions", "--no-such-flag"])).toEqual([
      "palimpsest sessions has no option --no-such-flag",
    ]);
    expect(await problems(["handoff", "grab"])).toEqual(["palimpsest handoff has no subcommand grab"]);
  });

  for (const { where, words } of commands) {
    it(`${where}: palimpsest ${words.join(" ")}`, async () => {
      expect(await problems(words)).toEqual([]);
    });
  }
});
