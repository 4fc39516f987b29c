import type { ToolCall } from "./message.ts";
import { isFileRead, toolKind } from "./tool-call-kinds.ts";

/**
 * Whether a tool result shows a file's lines rather than an outcome: at least three non-empty lines, half
 * or more starting with a line number (`   12→`, `12\t`, `1457:`, as Read, `cat -n`, editors and
 * SWE-agent's viewer print them).
 */
export function isFileListing(text: string): boolean {
  const lines = text.split(/\r?\n/).filter((l) => l.trim().length > 0);
  if (lines.length < 3) return false;
  const numbered = lines.filter((l) => /^\s*\d+(?:[:\t→│|]| {2})/.test(l)).length;
  return numbered * 2 >= lines.length;
}

/**
 * Whether a tool result is file content, not an outcome: the result of a file read or of a search tool
 * (the files' own lines, or names they matched), or numbered file lines whatever printed them. Error names
 * and measured numbers are taken from outcomes only (`call` is undefined when the call is unknown).
 */
export function isFileContent(call: ToolCall | undefined, text: string): boolean {
  if (call !== undefined && (isFileRead(call) || toolKind(call.name) === "search")) return true;
  return isFileListing(text);
}
