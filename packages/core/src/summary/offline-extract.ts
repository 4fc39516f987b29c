import type { Message, ToolCall } from "../messages/message.ts";
import { messageText } from "../messages/message.ts";
import { capEnd, capText, firstLine } from "./cut.ts";
import { extractErrorNames } from "./extract.ts";
import { type CommandItem, emptyDoc, type FileItem, type SummaryDoc } from "./summary-format.ts";

const STATE_CHARS = 900;
const LINE_CHARS = 200;
/** A command's first line is kept whole up to this many characters (the serializer cuts arguments at 2,000). */
const COMMAND_CHARS = 1_000;
/** How Claude Code opens a loaded skill's body in the user's role. */
const SKILL_PREFIX = "Base directory for this skill:";
/** What a harness (not the user) writes in the user's role: notifications, hook output, interruptions, skills. */
const HARNESS_PREFIXES = [
  "<task-notification>",
  "<system-reminder>",
  "<local-command-caveat>",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "[Request interrupted by user",
  SKILL_PREFIX,
];
const ARGUMENT_CHARS = 140;
const CONSTRAINTS_PER_SPAN = 8;
/** JSON argument names that hold the path of a file a tool call reads, writes or searches. */
const PATH_KEYS = ["file_path", "path", "notebook_path", "filePath", "filepath", "filename", "file"];
/** Shell-like tools: their `command` argument is the command line. */
const SHELL_TOOL =
  /^(?:bash|shell|sh|zsh|terminal|execute_bash|exec_command|execute_command|run_command|run_shell_command|run_terminal_cmd|local_shell)$/i;
const READ_TOOL = /^(?:read|read_file|view|view_file|open|open_file|cat|notebookread|read_many_files)$/i;
const WRITE_TOOL = /^(?:write|write_file|create|create_file|new_file)$/i;
const EDIT_TOOL = /^(?:edit|multiedit|edit_file|str_replace|apply_patch|notebookedit|replace|insert|patch)$/i;
/** Tools whose successful calls the Files section tells in full (searches stay in Commands: their pattern matters). */
const FILE_TOOL = new RegExp(`${READ_TOOL.source}|${WRITE_TOOL.source}|${EDIT_TOOL.source}|^str_replace_editor$`, "i");
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
/** Tools whose outputs are file contents or search hits, not reports: their lines are never error lines. */
const CONTENT_TOOL = /^(?:read|read_file|view|view_file|open|open_file|cat|grep|glob|search|find|ls|list_dir)$/i;
/** A sentence where the user states a constraint or a decision. */
const CONSTRAINT =
  /\b(?:must|never|always|don't|do not|doesn't|shouldn't|should|avoid|make sure|only|instead|prefer|required?|without|no need)\b/i;
/** A sentence of the assistant that says what comes next. */
const NEXT_STEP = /\b(?:next|then|now I|I'll|I will|let me|going to|remaining|still need|todo)\b/i;

/** A `"key": "string"` pair of a JSON object, found even when the serializer cut the object short. */
const STRING_FIELD = /"([A-Za-z_]+)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

/**
 * A tool call's JSON arguments; for arguments the serializer cut (no longer valid JSON), the string
 * fields still whole in them; undefined when there are none.
 */
function argumentsOf(call: ToolCall): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    const fields: Record<string, unknown> = {};
    for (const m of call.arguments.matchAll(STRING_FIELD)) {
      try {
        fields[m[1] ?? ""] ??= JSON.parse(`"${m[2] ?? ""}"`);
      } catch {
        // An escape the cut broke: leave this field out.
      }
    }
    if (Object.keys(fields).length > 0) return fields;
  }
  return undefined;
}

/** What a file tool call did to its path: `read`, `created`, `edited`, or the tool's name. */
function fileVerb(call: ToolCall, args: Record<string, unknown>): string {
  const editor = typeof args.command === "string" ? EDITOR_COMMANDS[args.command] : undefined;
  if (editor !== undefined) return editor;
  if (READ_TOOL.test(call.name)) return "read";
  if (WRITE_TOOL.test(call.name)) return "written";
  if (EDIT_TOOL.test(call.name)) return "edited";
  return call.name.toLowerCase();
}

/** The files a call names by key (a path without newlines), with what it did to them. */
function fileTouches(call: ToolCall, args: Record<string, unknown> | undefined, failed: boolean): FileItem[] {
  if (args === undefined) return [];
  const verb = `${fileVerb(call, args)}${failed ? " (failed)" : ""}`;
  const paths = PATH_KEYS.flatMap((k) => {
    const v = args[k];
    return typeof v === "string" && v !== "" && !v.includes("\n") && v.length <= 500 ? [v] : [];
  });
  return [...new Set(paths)].map((path) => ({ path, actions: [[verb, 1]] }));
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
  const command = args?.command ?? args?.cmd;
  if (SHELL_TOOL.test(call.name) && typeof command === "string") return `\`${firstLine(command, COMMAND_CHARS)}\``;
  const path = PATH_KEYS.map((k) => args?.[k]).find((v) => typeof v === "string");
  if (FILE_TOOL.test(call.name) && typeof path === "string") return `${call.name}(${firstLine(path, LINE_CHARS)})`;
  return `${call.name}(${shortArguments(call, args)})`;
}

/**
 * Error lines in a successful tool output: up to two lines that report an error or name one (never in
 * file contents or search hits), each with the call it came from. A failed call's first error line is
 * on its ✗ command line instead, and every error name is kept (SummaryDoc.errorNames).
 */
function errorLines(call: ToolCall, result: Message, from: string): string[] {
  if (result.isError === true || CONTENT_TOOL.test(call.name)) return [];
  const reports = (l: string) => ERROR_LINE.test(l) || extractErrorNames(l).length > 0;
  const lines = messageText(result)
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

/** The last todo list a `TodoWrite`-style call set, as one line, or undefined. */
function todoLine(call: ToolCall, args: Record<string, unknown> | undefined): string | undefined {
  const todos = args?.todos;
  if (!/todo/i.test(call.name) || !Array.isArray(todos)) return undefined;
  const items = todos.map((t) => {
    const todo = (t ?? {}) as { content?: unknown; status?: unknown };
    return `[${String(todo.status ?? "?")}] ${String(todo.content ?? "")}`;
  });
  return `Todo: ${capText(items.join("; "), 600, true)}`;
}

/** The directory a loaded skill's body names on its first line. */
function skillRoot(text: string): string {
  return (text.trimStart().slice(SKILL_PREFIX.length).split("\n")[0] ?? "").trim();
}

/** Whether a user message is a request: not empty, not written by the harness in the user's role. */
function isRequest(text: string): boolean {
  const trimmed = text.trim();
  return trimmed !== "" && !HARNESS_PREFIXES.some((p) => trimmed.startsWith(p));
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

/** The current state: the last assistant text (capped), the last todo list, and the next step it names. */
function currentState(lastText: string, todo: string | undefined, pending: string[]): string[] {
  const state: string[] = [];
  if (lastText !== "") state.push(`Last assistant message: ${capText(lastText, STATE_CHARS)}`);
  if (todo !== undefined) state.push(todo);
  if (pending.length > 0) state.push(`In progress (no result yet): ${capText(pending.join("; "), LINE_CHARS, true)}`);
  const next = lastText
    .split(/\n+|(?<=[.!?:])\s+/)
    .filter((s) => NEXT_STEP.test(s))
    .at(-1);
  if (next !== undefined && next.trim() !== lastText)
    state.push(`Next step: ${capText(next.trim(), LINE_CHARS, true)}`);
  return state;
}

/**
 * Extracts one span of serialized messages into a summary document, in order: the user's requests
 * verbatim, the constraints they state, the files tool calls touched (not paths a listing printed),
 * every tool call with its outcome, errors with their names and the current state.
 */
export function extract(messages: readonly Message[]): SummaryDoc {
  const results = new Map<string, Message>();
  for (const m of messages) if (m.role === "tool" && m.toolCallId !== undefined) results.set(m.toolCallId, m);
  const doc = emptyDoc();
  const names: string[] = [];
  let lastText = "";
  let todo: string | undefined;
  let pending: string[] = [];
  for (const message of messages) {
    const text = messageText(message);
    if (message.role === "user" && text.trimStart().startsWith(SKILL_PREFIX))
      doc.constraints.push(`Skill loaded: ${capEnd(skillRoot(text), LINE_CHARS)}`);
    if (message.role === "user" && isRequest(text)) {
      if (!doc.requests.some((r) => r.text === text)) doc.requests.push({ id: message.id, text });
      for (const c of constraintsIn(text)) if (doc.constraints.length < CONSTRAINTS_PER_SPAN) doc.constraints.push(c);
    }
    if (message.role === "assistant" && text.trim() !== "") lastText = text.trim();
    if (message.role === "tool") names.push(...extractErrorNames(text));
    if (message.role === "assistant" && (message.toolCalls?.length ?? 0) > 0) pending = [];
    for (const call of message.toolCalls ?? []) {
      const args = argumentsOf(call);
      const result = results.get(call.id);
      const what = label(call, args);
      const failed = result?.isError === true;
      for (const touch of fileTouches(call, args, failed)) addFile(doc.files, touch);
      const status = result === undefined ? "?" : failed ? "✗" : "✓";
      const outcome = failed ? `: ${firstLine(messageText(result), 100)}` : "";
      const todos = todoLine(call, args);
      todo = todos ?? todo;
      // A file read or edit that worked is in Files, a todo list in the state: neither is repeated here.
      const listed = status === "✓" && (todos !== undefined || FILE_TOOL.test(call.name));
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
