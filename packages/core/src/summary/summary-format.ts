import { HOW_TO_EXPAND, supersededHead } from "../messages/summary-lines.ts";
import { REQUESTS_TITLE, readRequests, summarySections } from "../messages/summary-requests.ts";

/** The section titles of every summary (offline and model-written), in the order they appear. */
export const SUMMARY_SECTIONS = [
  "User Requests",
  "Constraints & Decisions",
  "Files",
  "Commands",
  "Errors",
  "Current State",
  "Recovery",
] as const;

/** Title of the section that carries, line by line, a previous summary's text in no known section. */
export const EARLIER_CONTEXT = "Earlier Context";

/** A user request, verbatim, with the id of the message it came from when known (not rendered: Recovery has the ids). */
export interface RequestItem {
  id?: string;
  text: string;
}

/** A file the agent touched through a tool call, with what happened to it (`read`, `edited` …) and how often. */
export interface FileItem {
  path: string;
  actions: [string, number][];
}

/** A tool call: its one-line label, whether it failed (`✗`), succeeded (`✓`) or had no result (`?`), how often. */
export interface CommandItem {
  status: "✗" | "✓" | "?";
  line: string;
  count: number;
}

/** Measured numbers (docs/fidelity.md) one source gave: a tool call's output (by its label) or the assistant's text. */
export interface FigureItem {
  source: string;
  numbers: string[];
}

/** A summary as structured data: what the offline summarizer writes, merges and fits to its budget. */
export interface SummaryDoc {
  requests: RequestItem[];
  constraints: string[];
  files: FileItem[];
  commands: CommandItem[];
  /** Error lines: name or kind, first line, where it came from. */
  errors: string[];
  /** Error names not in any error line (so a dropped line never loses its name). */
  errorNames: string[];
  /** The last assistant text, the open todo list, the next step. */
  state: string[];
  /** Measured numbers by where they came from, oldest source first (rendered under Current State). */
  figures: FigureItem[];
  /** One line per superseded span: how many messages, first … last id. */
  superseded: string[];
  /** Lines of an earlier summary that were in no known section (a heading-less or foreign summary). */
  carried: string[];
}

/** A summary with nothing in it. */
export function emptyDoc(): SummaryDoc {
  return {
    requests: [],
    constraints: [],
    files: [],
    commands: [],
    errors: [],
    errorNames: [],
    state: [],
    figures: [],
    superseded: [],
    carried: [],
  };
}

const ALSO_NAMED = "Also named: ";
/** How a figures line starts: `Figures, <source>: 16ms, 85%`. */
const FIGURES = "Figures, ";
const BUDGET_LINE = "Budget: ";
/** The placeholder a model writes under an empty section. */
const NONE = /^\s*(?:[-*]\s+)?(?:none|n\/a)\.?\s*$/i;

/** How many earlier summaries a request supersedes with its messages: as it says, else 1 when it continues one. */
export function earlierSummaries(request: { previousSummary?: string; previousSummaries?: number }): number {
  return request.previousSummaries ?? ((request.previousSummary?.trim() ?? "") === "" ? 0 : 1);
}

const SUPERSEDED =
  /^Superseded (\d+) messages?(?: and (\d+) earlier summar(?:y|ies))?(?: in (\d+) compactions)?: (\S+)(?: … (\S+))?$/;

/**
 * Folds superseded-span lines into one: the total count, the first span's first id, the last span's last
 * id and how many compactions (so the pointer does not grow with every compaction). Lines of another shape
 * are kept as they are.
 */
export function foldSuperseded(lines: readonly string[]): string[] {
  const spans = lines.map((l) => SUPERSEDED.exec(l));
  const parsed = spans.filter((m) => m !== null);
  const others = lines.filter((_, i) => spans[i] === null);
  const first = parsed[0];
  const last = parsed.at(-1);
  if (first === undefined || last === undefined || parsed.length === 1) return [...lines];
  const count = parsed.reduce((n, m) => n + Number(m[1]), 0);
  const summaries = parsed.reduce((n, m) => n + Number(m[2] ?? 0), 0);
  const compactions = parsed.reduce((n, m) => n + Number(m[3] ?? 1), 0);
  return [`${supersededHead(count, summaries, compactions)}: ${first[4]} … ${last[5] ?? last[4]}`, ...others];
}

/** A backtick fence longer than any backtick run in `text` (at least three). */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

/** One file's line: the path (less `root`) in backticks, then its actions (`read, edited ×2`). */
function fileLine(file: FileItem, root: string): string {
  const actions = file.actions.map(([verb, n]) => (n > 1 ? `${verb} ×${n}` : verb)).join(", ");
  return `- \`${file.path.slice(root.length)}\`: ${actions}`;
}

/** The Files section's lead line naming the folder its paths are relative to. */
const FILES_ROOT = /^Under `(.+\/)`:$/;
/** A shared folder shorter than this is not worth a lead line. */
const MIN_ROOT_CHARS = 16;

/**
 * The folder that saves the most characters stated once: the one most absolute paths share, weighed by
 * its length, when two or more lie in it and it is long enough to be worth a lead line. Each path under
 * it keeps at least its last two segments (how a reader, and the fidelity measure, tell a file apart).
 * "" when there is none.
 */
function filesRoot(paths: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const path of paths) {
    const segments = path.split("/").slice(0, -2);
    for (let n = 2; n <= segments.length; n++) {
      const folder = `${segments.slice(0, n).join("/")}/`;
      counts.set(folder, (counts.get(folder) ?? 0) + 1);
    }
  }
  let best = "";
  let saved = 0;
  for (const [folder, count] of counts) {
    const gain = (count - 1) * folder.length;
    if (count >= 2 && folder.length >= MIN_ROOT_CHARS && gain > saved) [best, saved] = [folder, gain];
  }
  return best;
}

/**
 * The Files section's lines: the paths not under the shared folder first (as written: relative, or
 * absolute elsewhere), then, when there is one, that folder once and each path in it relative to it (a
 * reader applies the folder to the lines after it only).
 */
function fileLines(files: readonly FileItem[]): string[] {
  const root = filesRoot(files.filter((f) => f.path.startsWith("/")).map((f) => f.path));
  if (root === "") return files.map((f) => fileLine(f, ""));
  // A file directly in the folder stays absolute: it would keep one segment only.
  const under = (f: FileItem) => f.path.startsWith(root) && f.path.slice(root.length).includes("/");
  const elsewhere = files.filter((f) => !under(f));
  return [
    ...elsewhere.map((f) => fileLine(f, "")),
    `Under \`${root}\`:`,
    ...files.filter(under).map((f) => fileLine(f, root)),
  ];
}

/** One command's line: status, label, and `(×n)` when it ran more than once. */
function commandLine(command: CommandItem): string {
  return `- ${command.status} ${command.line}${command.count > 1 ? ` (×${command.count})` : ""}`;
}

/** The lines of one request: its header and its text between fences, never re-indented. */
function requestLines(request: RequestItem, n: number): string[] {
  const fence = fenceFor(request.text);
  return [`[request ${n}]`, fence, request.text, fence];
}

/** What the budget line says: the estimate, the budget, and how many lines were dropped to meet it. */
export interface BudgetNote {
  tokens: number;
  budget: number;
  dropped: number;
  /** Characters a user request is kept whole up to. */
  requestCap: number;
}

/**
 * Renders a summary: the sections in order (empty ones left out, except Recovery), each request fenced
 * verbatim, failed commands before the others, and the recovery pointer with the budget line.
 */
export function renderDoc(doc: SummaryDoc, note?: BudgetNote): string {
  const blocks: string[] = [];
  const section = (title: string, lines: string[]) => {
    if (lines.length > 0) blocks.push([`## ${title}`, ...lines].join("\n"));
  };
  const cap =
    note === undefined
      ? ""
      : ` (over ${note.requestCap.toLocaleString("en-US")} characters: cut in the middle, marked)`;
  section(
    "User Requests",
    doc.requests.length === 0
      ? []
      : [`Verbatim, oldest first${cap}.`, ...doc.requests.flatMap((r, i) => requestLines(r, i + 1))],
  );
  section(EARLIER_CONTEXT, doc.carried);
  section(
    "Constraints & Decisions",
    doc.constraints.map((c) => `- ${c}`),
  );
  section("Files", fileLines(doc.files));
  const failed = doc.commands.filter((c) => c.status === "✗");
  section("Commands", [...failed, ...doc.commands.filter((c) => c.status !== "✗")].map(commandLine));
  section("Errors", [
    ...doc.errors.map((e) => `- ${e}`),
    ...(doc.errorNames.length === 0 ? [] : [`- ${ALSO_NAMED}${doc.errorNames.join(", ")}`]),
  ]);
  section("Current State", [...doc.state, ...doc.figures.map((f) => `${FIGURES}${f.source}: ${f.numbers.join(", ")}`)]);
  const budget =
    note === undefined
      ? []
      : [
          `- ${BUDGET_LINE}~${note.tokens} of ${note.budget} tokens${
            note.tokens > note.budget ? " (over: requests are never dropped)" : ""
          }; ${note.dropped === 0 ? "nothing dropped" : `${note.dropped} lines dropped, least important first`}.`,
        ];
  section("Recovery", [...doc.superseded.map((s) => `- ${s}`), `- ${HOW_TO_EXPAND}`, ...budget]);
  return blocks.join("\n\n");
}

/** Reads one list item's text (`- text`), or undefined for a line that is not one. */
function item(line: string): string | undefined {
  const m = /^\s*[-*]\s+(.*)$/.exec(line);
  return m === null ? undefined : (m[1] ?? "").trimEnd();
}

/** Reads a file line back (`- \`path\`: read, edited ×2`), a relative path under `root`. */
function parseFile(text: string, root: string): FileItem | undefined {
  const m = /^`(.+)`: (.+)$/.exec(text);
  if (m === null) return undefined;
  const path = m[1] ?? "";
  const actions = (m[2] ?? "").split(", ").map((a): [string, number] => {
    const c = /^(.*?) ×(\d+)$/.exec(a);
    return c === null ? [a, 1] : [c[1] ?? a, Number(c[2])];
  });
  return { path: path.startsWith("/") ? path : `${root}${path}`, actions };
}

/** Reads a figures line back (`Figures, source: 16ms, 85%`); undefined for any other line. */
function parseFigures(line: string): FigureItem | undefined {
  if (!line.startsWith(FIGURES)) return undefined;
  const rest = line.slice(FIGURES.length);
  const colon = rest.lastIndexOf(": ");
  if (colon <= 0) return undefined;
  return {
    source: rest.slice(0, colon),
    numbers: rest
      .slice(colon + 2)
      .split(", ")
      .filter((n) => n !== ""),
  };
}

/** Reads a command line back (`- ✗ label (×2)`). */
function parseCommand(text: string): CommandItem | undefined {
  const m = /^([✗✓?]) (.+?)(?: \(×(\d+)\))?$/.exec(text);
  if (m === null) return undefined;
  return { status: m[1] as CommandItem["status"], line: m[2] ?? "", count: m[3] === undefined ? 1 : Number(m[3]) };
}

/** Reads one section's lines into the document; lines in no known shape are carried. */
function readSection(doc: SummaryDoc, title: string, lines: string[]): void {
  if (title === REQUESTS_TITLE) {
    doc.requests.push(...readRequests(lines));
    return;
  }
  if (title === "Current State") {
    for (const line of lines.filter((l) => l.trim() !== "" && !NONE.test(l))) {
      const figures = parseFigures(line);
      if (figures === undefined) doc.state.push(line);
      else doc.figures.push(figures);
    }
    return;
  }
  let root = "";
  for (const line of lines) {
    if (line.trim() === "" || NONE.test(line)) continue;
    const under = title === "Files" ? FILES_ROOT.exec(line.trim()) : null;
    if (under !== null) {
      root = under[1] ?? "";
      continue;
    }
    const text = item(line);
    const read = text === undefined ? false : readItem(doc, title, text, root);
    if (!read) doc.carried.push(title === EARLIER_CONTEXT ? line : `${title}: ${line.trim()}`);
  }
}

/** Adds one list item of a known section (Files' paths under `root`); false when it has no place there. */
function readItem(doc: SummaryDoc, title: string, text: string, root: string): boolean {
  switch (title) {
    case "Constraints & Decisions":
      doc.constraints.push(text);
      return true;
    case "Files": {
      const file = parseFile(text, root);
      if (file !== undefined) doc.files.push(file);
      return file !== undefined;
    }
    case "Commands": {
      const command = parseCommand(text);
      if (command !== undefined) doc.commands.push(command);
      return command !== undefined;
    }
    case "Errors":
      if (text.startsWith(ALSO_NAMED)) doc.errorNames.push(...text.slice(ALSO_NAMED.length).split(", "));
      else doc.errors.push(text);
      return true;
    case "Recovery":
      if (!text.startsWith("To read them:") && !text.startsWith(BUDGET_LINE)) doc.superseded.push(text);
      return true;
    default:
      return false;
  }
}

/**
 * Reads a summary back into its document: every `## ` section outside a fence, several summaries one
 * after the other included (their items appended in order). A summary without a known heading is carried
 * line by line; a section of another format is carried under its title.
 */
export function parseDoc(summary: string): SummaryDoc {
  const doc = emptyDoc();
  for (const { title, lines } of summarySections(summary)) {
    if (title !== undefined) readSection(doc, title, lines);
    else doc.carried.push(...lines.filter((l) => l.trim() !== ""));
  }
  return doc;
}
