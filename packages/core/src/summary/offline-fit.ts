import { errorNames } from "../messages/error-names.ts";
import { estimateTokens } from "../messages/estimate-tokens.ts";
import { shellCommandPaths } from "../messages/shell-paths.ts";
import { LAST_MESSAGE, shortLastMessageLine } from "../messages/summary-lines.ts";
import { type CommandItem, type FileItem, renderDoc, type SummaryDoc } from "./summary-format.ts";

/** What a file a dropped command line named did, as its Files line says. */
const NAMED = "named by a command";
/** Actions that leave a file as it was (or say nothing of it): the least important files to list. */
const LOOKS = new Set(["read", "view", "grep", "glob", "search", "ls", "list", NAMED]);

const isShell = (c: CommandItem) => c.line.startsWith("`");
const onlyLooked = (f: FileItem) => f.actions.every(([verb]) => LOOKS.has(verb.replace(" (failed)", "")));

/** One class of droppable lines: which list, which of its items; dropped oldest first. */
interface DropClass {
  take(doc: SummaryDoc): { list: unknown[]; pick: (item: never) => boolean };
}

/**
 * The order lines are dropped in when over budget, least important first: text carried from a foreign
 * summary, error lines of successful outputs (their names are kept), successful non-shell tool calls
 * (their paths are in Files), measured figures, successful commands, calls without a result, constraints
 * (the requests hold them verbatim), files only read, failed commands, the other files, then the state's
 * extra lines. Requests and the recovery pointer stay.
 */
const DROP_ORDER: DropClass[] = [
  { take: (d) => ({ list: d.carried, pick: () => true }) },
  { take: (d) => ({ list: d.errors, pick: () => true }) },
  { take: (d) => ({ list: d.commands, pick: (c: CommandItem) => c.status === "✓" && !isShell(c) }) },
  { take: (d) => ({ list: d.figures, pick: () => true }) },
  { take: (d) => ({ list: d.commands, pick: (c: CommandItem) => c.status === "✓" }) },
  { take: (d) => ({ list: d.commands, pick: (c: CommandItem) => c.status === "?" }) },
  { take: (d) => ({ list: d.constraints, pick: () => true }) },
  { take: (d) => ({ list: d.files, pick: onlyLooked }) },
  { take: (d) => ({ list: d.commands, pick: () => true }) },
  { take: (d) => ({ list: d.files, pick: () => true }) },
  { take: (d) => ({ list: d.state, pick: (line: string) => !line.startsWith(LAST_MESSAGE) }) },
];

/** A fitted summary: its text, its estimated tokens and how many lines were dropped. */
export interface Fitted {
  text: string;
  tokens: number;
  dropped: number;
}

/**
 * Renders `doc` within `budget` tokens (estimated): the last assistant message shortened, then the least
 * important lines dropped (DROP_ORDER, oldest first within a class); the recovery section says how many
 * went. Requests are never cut (beyond the serializer's stated cap): when they alone exceed the budget,
 * the summary exceeds it and says so.
 */
export function fitDoc(doc: SummaryDoc, budget: number, requestCap: number): Fitted {
  let dropped = 0;
  const render = () => {
    // The budget line states the summary's own size: render until the number it states is the text's.
    let tokens = 0;
    let text = renderDoc(doc, { tokens, budget, dropped, requestCap });
    for (let i = 0; i < 3 && estimateTokens(text) !== tokens; i++) {
      tokens = estimateTokens(text);
      text = renderDoc(doc, { tokens, budget, dropped, requestCap });
    }
    return { text, tokens: estimateTokens(text) };
  };
  let current = render();
  const last = doc.state.findIndex((l) => l.startsWith(LAST_MESSAGE));
  if (current.tokens > budget && last !== -1) {
    doc.state[last] = shortLastMessageLine(doc.state[last] ?? "");
    current = render();
  }
  for (const cls of DROP_ORDER) {
    while (current.tokens > budget) {
      const { list, pick } = cls.take(doc);
      const index = list.findIndex((x) => pick(x as never));
      if (index === -1) break;
      const over = current.tokens - budget;
      // Drop in bulk when far over, so a long span costs a few renders, not one per line.
      const bulk = Math.max(1, Math.floor(over / 200));
      let n = 0;
      for (let i = index; i < list.length && n < bulk; ) {
        if (pick(list[i] as never)) {
          const [gone] = list.splice(i, 1);
          if (list === doc.errors) keepNames(doc, String(gone));
          if (list === doc.commands) keepPaths(doc, gone as CommandItem);
          n++;
        } else i++;
      }
      dropped += n;
      current = render();
    }
  }
  return { ...current, dropped };
}

/**
 * Keeps the paths a dropped successful shell command named as Files lines (a path is a few tokens, the
 * command line many), unless Files has them (a relative path of two or more segments ending a listed one
 * is that file; `./` is dropped); they go with the files only read if the budget needs it.
 */
function keepPaths(doc: SummaryDoc, command: CommandItem): void {
  if (command.status !== "✓" || !isShell(command) || !command.line.endsWith("`")) return;
  for (const named of shellCommandPaths(command.line.slice(1, -1))) {
    const path = named.startsWith("./") ? named.slice(2) : named;
    // A relative path of two or more segments ending a listed path is that file; a bare name may be another.
    const tail = !path.startsWith("/") && path.includes("/") ? `/${path}` : undefined;
    const listed = doc.files.some((f) => f.path === path || (tail !== undefined && f.path.endsWith(tail)));
    if (!listed) doc.files.push({ path, actions: [[NAMED, 1]] });
  }
}

/** Keeps the error names of a dropped error line in the names list. */
function keepNames(doc: SummaryDoc, line: string): void {
  const remaining = doc.errors.join("\n");
  for (const name of errorNames(line)) {
    if (!remaining.includes(name) && !doc.errorNames.includes(name)) doc.errorNames.push(name);
  }
}
