import { isObject } from "../input/json-object.ts";
import type { ToolCall } from "./message.ts";

/**
 * What a tool does, told by its name (case-insensitive) across agents: runs a shell command, reads a file,
 * writes one, edits one, is an editor that says what it does in a `command` argument (`view`, `create`,
 * `str_replace`, …), searches under a directory, or anything else.
 */
export type ToolKind = "shell" | "read" | "write" | "edit" | "editor" | "search" | "other";

/** The tool names of each kind (Claude Code, OpenHands, SWE-agent, Codex, Gemini CLI, Cursor and similar agents). */
const KINDS: readonly [ToolKind, RegExp][] = [
  [
    "shell",
    /^(?:bash|sh|zsh|shell|execute_bash|exec|exec_command|execute_command|run_command|run_shell_command|run_terminal_cmd|terminal|local_shell)$/i,
  ],
  ["read", /^(?:read|read_file|read_many_files|view|view_file|open|open_file|cat|notebookread)$/i],
  ["write", /^(?:write|write_file|create|create_file|new_file)$/i],
  ["edit", /^(?:edit|multiedit|edit_file|str_replace|apply_patch|patch|replace|insert|notebookedit)$/i],
  ["editor", /^(?:str_replace_editor|str_replace_based_edit_tool)$/i],
  ["search", /^(?:glob|grep|ls|list_dir|list_directory|find|find_file|find_files|search|search_dir|search_file)$/i],
];

/** Argument keys that name the file a tool reads, creates or edits (a search tool's `path` is its search root instead). */
const PATH_KEYS = ["file_path", "path", "filename", "notebook_path", "filePath", "filepath", "file"] as const;

/** The longest argument value taken for a path: a longer one is content, not a file name. */
const PATH_CHARS = 500;

/** A `"key": "string"` pair of a JSON object, found even when a cap cut the object short. */
const STRING_FIELD = /"([A-Za-z_]+)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

/** The kind of a tool, by its name. */
export function toolKind(name: string): ToolKind {
  return KINDS.find(([, pattern]) => pattern.test(name))?.[0] ?? "other";
}

/**
 * A tool call's JSON arguments as an object; when they are not valid JSON (a summarizer's cap cut them),
 * the string fields still whole in them; undefined when there is neither.
 */
export function toolArguments(call: ToolCall): Record<string, unknown> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments);
  } catch {
    return wholeStringFields(call.arguments);
  }
  return isObject(parsed) ? parsed : undefined;
}

/** The string fields still whole in JSON cut short; undefined when there are none. */
function wholeStringFields(text: string): Record<string, unknown> | undefined {
  const fields: Record<string, unknown> = {};
  for (const m of text.matchAll(STRING_FIELD)) {
    try {
      fields[m[1] ?? ""] ??= JSON.parse(`"${m[2] ?? ""}"`);
    } catch {
      // An escape the cut broke: leave this field out.
    }
  }
  return Object.keys(fields).length > 0 ? fields : undefined;
}

/** The shell command a call runs (a shell tool's `command` or `cmd` argument), line endings normalized; undefined otherwise. */
export function shellCommand(call: ToolCall): string | undefined {
  if (toolKind(call.name) !== "shell") return undefined;
  const args = toolArguments(call);
  const command = typeof args?.command === "string" ? args.command : args?.cmd;
  return typeof command === "string" ? command.replace(/\r\n?/g, "\n") : undefined;
}

/** A command as it is counted and kept: its first non-empty line, trimmed (a heredoc's body is content, not the command). */
export function commandLine(command: string): string {
  return (
    command
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? ""
  );
}

/**
 * The files a call's arguments name (PATH_KEYS), in key order, distinct: each value trimmed, when it is
 * one non-empty line of at most 500 characters; none for a search tool (its `path` is a search root, not
 * a file touched) nor a shell tool (its paths are in its command).
 */
export function argumentPaths(call: ToolCall): string[] {
  const kind = toolKind(call.name);
  if (kind === "search" || kind === "shell") return [];
  const args = toolArguments(call);
  const paths = PATH_KEYS.flatMap((key) => {
    const value = args?.[key];
    if (typeof value !== "string") return [];
    const path = value.trim();
    return path.length > 0 && path.length <= PATH_CHARS && !path.includes("\n") ? [path] : [];
  });
  return [...new Set(paths)];
}

/** Whether a call only reads a file: a read tool, or an editor's `view` command on a path. */
export function isFileRead(call: ToolCall): boolean {
  if (toolKind(call.name) === "read") return true;
  return toolArguments(call)?.command === "view" && argumentPaths(call).length > 0;
}
