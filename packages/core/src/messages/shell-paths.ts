import { isPseudoFile, pathWord } from "./path-shape.ts";
import { type SimpleCommand, simpleCommands } from "./shell-words.ts";

/** Programs whose arguments are not files they operate on: directory moves, listings, searches for names, text. */
const NOT_FILE_PROGRAMS = new Set(["cd", "pushd", "ls", "ll", "tree", "find", "fd", "echo", "printf", "which", "type"]);

/**
 * Programs whose first non-option argument is a script, a pattern or a task, not a file (`sed 's/a/b/' f`,
 * `grep -r x src`, `mix ecto.migrate`, `npm run x`, `make build`).
 */
const SCRIPT_FIRST = new Set([
  ...["sed", "awk", "gawk", "perl", "grep", "egrep", "fgrep", "rg", "ag", "jq"],
  ...["mix", "npm", "pnpm", "yarn", "npx", "cargo", "go", "make", "gh", "docker", "kubectl"],
]);

/** The git subcommands whose arguments are paths (`git add a.ts`); others take refs, remotes, messages. */
const GIT_FILE_SUBCOMMANDS = new Set(["add", "rm", "mv", "diff", "restore", "checkout", "blame", "ls-files"]);

/** Options whose value is a script or pattern (`-e 's/a/b/'`, `python -c …`, `node -e …`). */
const SCRIPT_OPTIONS = new Set(["-e", "-c", "--eval", "--expression", "--regexp"]);

/**
 * The file paths a shell command operates on, in order, distinct: the path-shaped arguments (pathWord)
 * of each simple command and its output redirection targets, except arguments of NOT_FILE_PROGRAMS, the
 * script or pattern of SCRIPT_FIRST programs and of SCRIPT_OPTIONS, environment assignments, and pseudo
 * files. Paths stay as written (relative ones are not resolved). The program itself counts when it is a
 * path (`./run.sh`).
 */
export function shellCommandPaths(command: string): string[] {
  const out = new Set<string>();
  for (const simple of simpleCommands(command)) for (const path of commandPaths(simple)) out.add(path);
  return [...out];
}

function commandPaths({ words, redirects }: SimpleCommand): string[] {
  const found: string[] = [];
  let at = 0;
  while (at < words.length && /^[A-Za-z_]\w*=/.test(words[at] ?? "")) at += 1;
  for (const prefix of ["sudo", "env", "time", "nohup", "timeout", "xargs"]) {
    if (words[at] === prefix) at += 1;
  }
  const program = words[at] ?? "";
  const base = program.split("/").at(-1) ?? program;
  if (program.includes("/")) found.push(...pathOf(program));
  if (base === "git") {
    const sub = words.slice(at + 1).find((w) => !w.startsWith("-"));
    if (sub === undefined || !GIT_FILE_SUBCOMMANDS.has(sub)) return [...found, ...redirects.flatMap(pathOf)];
  }
  if (!NOT_FILE_PROGRAMS.has(base)) {
    let scriptPending = SCRIPT_FIRST.has(base);
    for (let i = at + 1; i < words.length; i += 1) {
      const word = words[i] ?? "";
      if (SCRIPT_OPTIONS.has(word)) {
        i += 1;
        scriptPending = false;
        continue;
      }
      if (word.startsWith("-")) continue;
      if (scriptPending) {
        scriptPending = false;
        continue;
      }
      found.push(...pathOf(word));
    }
  }
  return [...found, ...redirects.flatMap(pathOf)];
}

/** A word as a touched path: path-shaped and not a pseudo file; empty otherwise. */
function pathOf(word: string): string[] {
  const path = pathWord(word);
  return path === undefined || isPseudoFile(path) ? [] : [path];
}
