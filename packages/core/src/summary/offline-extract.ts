import { capEnd, capText, firstLine } from "../messages/cut.ts";
import { errorNames } from "../messages/error-names.ts";
import { measuredNumbers } from "../messages/measured-numbers.ts";
import type { Message, ToolCall } from "../messages/message.ts";
import { messageText } from "../messages/message.ts";
import { currentState, failedOutcome, LINE_CHARS, todoLine } from "../messages/summary-lines.ts";
import { argumentPaths, shellCommand, type ToolKind, toolArguments, toolKind } from "../messages/tool-call-kinds.ts";
import { isFileContent } from "../messages/tool-output.ts";
import { isUserRequest, requestText, SKILL_PREFIX } from "../messages/user-requests.ts";
import { type CommandItem, emptyDoc, type FigureItem, type FileItem, type SummaryDoc } from "./summary-format.ts";

/**
 * A figures line names its source in at most this many characters (its numbers are all kept: the budget alone
 * drops lines), cut inline: a later summary reads it back line by line (parseDoc), so it stays one line.
 */
const FIGURE_SOURCE_CHARS = 80;
/** The source of figures the assistant wrote in its own text. */
const ASSISTANT_SOURCE = "assistant";
/** A command's first line is kept whole up to this many characters (the serializer cuts arguments at 2,000). */
const COMMAND_CHARS = 1_000;
const ARGUMENT_CHARS = 140;
const CONSTRAINTS_PER_SPAN = 8;
/** Tools whose successful calls the Files section tells in full (searches stay in Commands: their pattern matters). */
const FILE_KINDS = new Set<ToolKind>(["read", "write", "edit", "editor"]);
/** `str_replace_editor`-style tools say what they did in a `command` argument. */
const EDITOR_COMMANDS: Record<string, string> = {
  view: "read",
  create: "created",
  str_replace: "edited",
  insert: "edited",
  undo_edit: "edit undone",
};
/** A line of a successful output that reports an error: `error: …`, `FAILED …`, `1 failure`, `panic: …`. */
const ERROR_LINE =
  /\b(?:error|failed|failure|fatal|panic)\b\s*[:!]|^\s*(?:FAIL|FAILED|ERROR)\b|\b[1-9]\d* (?:failures?|errors?|failed)\b/i;
/** A sentence where the user states a constraint or a decision. */
const CONSTRAINT =
  /\b(?:must|never|always|don't|do not|doesn't|shouldn't|should|avoid|make sure|only|instead|prefer|required?|without|no need)\b/i;

/** What a file tool call did to its path: `read`, `created`, `edited`, or the tool's name. */
function fileVerb(call: ToolCall, args: Record<string, unknown>): string {
  const editor = typeof args.command === "string" ? EDITOR_COMMANDS[args.command] : undefined;
  if (editor !== undefined) return editor;
  const kind = toolKind(call.name);
  if (kind === "read") return "read";
  if (kind === "write") return "written";
  if (kind === "edit") return "edited";
  return call.name.toLowerCase();
}

/** The files a call's arguments name (argumentPaths), with what it did to them. */
function fileTouches(call: ToolCall, args: Record<string, unknown> | undefined, failed: boolean): FileItem[] {
  if (args === undefined) return [];
  const verb = `${fileVerb(call, args)}${failed ? " (failed)" : ""}`;
  return argumentPaths(call).map((path) => ({ path, actions: [[verb, 1]] }));
}

/** A call's arguments in one short line: `key=value` pairs for a JSON object, else the first line. */
function shortArguments(call: ToolCall, args: Record<string, unknown> | undefined): string {
  if (args === undefined) return firstLine(call.arguments, ARGUMENT_CHARS);
  const pairs = Object.entries(args).map(([k, v]) => {
    const value = typeof v === "string" ? v : JSON.stringify(v);
    return `${k}=${firstLine(value ?? "", 60)}`;
  });
  return capText(pairs.join(" "), ARGUMENT_CHARS, true);
}

/**
 * A call's label: the command line in backticks for shell tools, `name(path)` for file tools (their
 * other arguments are file content), else `name(arguments)`.
 */
function label(call: ToolCall, args: Record<string, unknown> | undefined): string {
  const command = shellCommand(call);
  if (command !== undefined) return `\`${firstLine(command, COMMAND_CHARS)}\``;
  const path = argumentPaths(call)[0];
  if (isFileTool(call) && path !== undefined) return `${call.name}(${capEnd(path, LINE_CHARS)})`;
  return `${call.name}(${shortArguments(call, args)})`;
}

/** Whether the Files section tells a call that worked: a file read, write or edit, or an editor's command. */
function isFileTool(call: ToolCall): boolean {
  return FILE_KINDS.has(toolKind(call.name));
}

/**
 * Error lines in a successful tool output: up to two lines that report an error or name one (never in
 * file contents or search hits: isFileContent), each with the call it came from. A failed call's first error line is
 * on its ✗ command line instead, and every error name is kept (SummaryDoc.errorNames).
 */
function errorLines(call: ToolCall, result: Message, from: string): string[] {
  const text = messageText(result);
  if (result.isError === true || isFileContent(call, text)) return [];
  const reports = (l: string) => ERROR_LINE.test(l) || errorNames(l).length > 0;
  const lines = text
    .split("\n")
    .filter(reports)
    .slice(0, 2)
    .map((l) => capEnd(l.trim(), LINE_CHARS));
  const source = from.startsWith("`") ? capEnd(from, 60) : call.name;
  return lines.filter((l) => l !== "").map((l) => `${l} (from ${source})`);
}

/** Sentences of a user message that state a constraint, each on one line. */
function constraintsIn(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 12 && CONSTRAINT.test(s))
    .map((s) => capText(s.replace(/\s+/g, " "), LINE_CHARS, true));
}

/** The directory a loaded skill's body names on its first line. */
function skillRoot(text: string): string {
  return (text.trimStart().slice(SKILL_PREFIX.length).split("\n")[0] ?? "").trim();
}

/** Adds a file's touch, merging with an earlier touch of the same path (actions counted, first-seen order). */
export function addFile(files: FileItem[], touch: FileItem): void {
  const known = files.find((f) => f.path === touch.path);
  if (known === undefined) {
    files.push({ path: touch.path, actions: touch.actions.map(([v, n]) => [v, n]) });
    return;
  }
  for (const [verb, n] of touch.actions) {
    const action = known.actions.find(([v]) => v === verb);
    if (action === undefined) known.actions.push([verb, n]);
    else action[1] += n;
  }
}

/** Adds a command, counting a repeat of the same label and outcome instead of listing it again. */
export function addCommand(commands: CommandItem[], command: CommandItem): void {
  const known = commands.find((c) => c.line === command.line && c.status === command.status);
  if (known === undefined) commands.push({ ...command });
  else known.count += command.count;
}

/** Adds `figure`'s numbers to the figures of its source (a new source goes last), each number once. */
export function addFigures(figures: FigureItem[], figure: FigureItem): void {
  if (figure.numbers.length === 0) return;
  let known = figures.find((f) => f.source === figure.source);
  if (known === undefined) {
    known = { source: figure.source, numbers: [] };
    figures.push(known);
  }
  for (const n of figure.numbers) {
    if (!known.numbers.includes(n)) known.numbers.push(n);
  }
}

/**
 * Extracts one span of serialized messages into a summary document, in order: the user's requests
 * verbatim, the constraints they state, the files tool calls touched (not paths a listing printed),
 * every tool call with its outcome, errors with their names and the current state.
 */
export function extract(messages: readonly Message[]): SummaryDoc {
  const results = new Map<string, Message>();
  const calls = new Map<string, ToolCall>();
  for (const m of messages) {
    if (m.role === "tool" && m.toolCallId !== undefined) results.set(m.toolCallId, m);
    for (const call of m.toolCalls ?? []) calls.set(call.id, call);
  }
  const doc = emptyDoc();
  const names: string[] = [];
  let lastText = "";
  let todo: string | undefined;
  let pending: string[] = [];
  for (const message of messages) {
    const text = messageText(message);
    if (message.role === "user" && text.trimStart().startsWith(SKILL_PREFIX))
      doc.constraints.push(`Skill loaded: ${capEnd(skillRoot(text), LINE_CHARS)}`);
    if (isUserRequest(message)) {
      const request = requestText(text);
      if (!doc.requests.some((r) => r.text === request)) doc.requests.push({ id: message.id, text: request });
      for (const c of constraintsIn(request))
        if (doc.constraints.length < CONSTRAINTS_PER_SPAN) doc.constraints.push(c);
    }
    if (message.role === "assistant" && text.trim() !== "") lastText = text.trim();
    if (message.role === "assistant")
      addFigures(doc.figures, { source: ASSISTANT_SOURCE, numbers: measuredNumbers(text) });
    const answered = message.toolCallId === undefined ? undefined : calls.get(message.toolCallId);
    if (message.role === "tool" && !isFileContent(answered, text)) {
      names.push(...errorNames(text));
      const source =
        answered === undefined
          ? "a tool"
          : capText(label(answered, toolArguments(answered)), FIGURE_SOURCE_CHARS, true);
      addFigures(doc.figures, { source, numbers: measuredNumbers(text) });
    }
    if (message.role === "assistant" && (message.toolCalls?.length ?? 0) > 0) pending = [];
    for (const call of message.toolCalls ?? []) {
      const args = toolArguments(call);
      const result = results.get(call.id);
      const what = label(call, args);
      const failed = result?.isError === true;
      for (const touch of fileTouches(call, args, failed)) addFile(doc.files, touch);
      const status = result === undefined ? "?" : failed ? "✗" : "✓";
      const outcome = failed ? failedOutcome(messageText(result)) : "";
      const todos = todoLine(call);
      todo = todos ?? todo;
      // A file read or edit that worked is in Files, a todo list in the state: neither is repeated here.
      const listed = status === "✓" && (todos !== undefined || isFileTool(call));
      if (!listed) addCommand(doc.commands, { status, line: `${what}${outcome}`, count: 1 });
      if (result === undefined) pending.push(what);
      if (result !== undefined) doc.errors.push(...errorLines(call, result, what));
    }
  }
  doc.errors = [...new Set(doc.errors)];
  const written = doc.errors.join("\n");
  doc.errorNames = [...new Set(names)].filter((n) => !written.includes(n));
  doc.state = currentState(lastText, todo, pending);
  return doc;
}
