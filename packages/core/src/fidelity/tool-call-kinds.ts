import type { ToolCall } from "../messages/message.ts";

/** Tools that run a shell command from their `command` (or `cmd`) argument. */
const SHELL_TOOLS =
  /^(?:bash|execute_bash|shell|run_shell_command|run_command|execute_command|terminal|exec|local_shell)$/i;

/** Tools that search by name or content under a directory: their `path` is a search root, not a file touched. */
const SEARCH_TOOLS = /^(?:glob|grep|ls|list_dir|list_directory|find_file|find_files|search_dir|search_file|search)$/i;

/** Tools that only read a file (their results are file content, not output to take error names or numbers from). */
const READ_TOOLS = /^(?:read|read_file|view|view_file|open|cat)$/i;

/** Argument keys that name the file a tool reads, creates or edits. */
const PATH_KEYS = ["file_path", "path", "filename", "notebook_path"] as const;

/** A tool call's JSON arguments as an object; empty when they are not a JSON object. */
export function toolArguments(call: ToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The shell command a call runs (a shell tool's `command` or `cmd`), line endings normalized; undefined otherwise. */
export function shellCommand(call: ToolCall): string | undefined {
  if (!SHELL_TOOLS.test(call.name)) return undefined;
  const args = toolArguments(call);
  const command = typeof args.command === "string" ? args.command : args.cmd;
  return typeof command === "string" ? command.replace(/\r\n?/g, "\n") : undefined;
}

/** The file paths a non-shell call's arguments name (PATH_KEYS), except a search tool's search root. */
export function argumentPaths(call: ToolCall): string[] {
  if (SEARCH_TOOLS.test(call.name)) return [];
  const args = toolArguments(call);
  return PATH_KEYS.flatMap((key) => {
    const value = args[key];
    return typeof value === "string" && value.trim().length > 0 && !/\s/.test(value.trim()) ? [value.trim()] : [];
  });
}

/** Whether a call only reads a file: a read tool, or an editor tool's `view` command. */
export function isFileRead(call: ToolCall): boolean {
  if (READ_TOOLS.test(call.name)) return true;
  const args = toolArguments(call);
  return args.command === "view" && argumentPaths(call).length > 0;
}
