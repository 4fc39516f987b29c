import type { ToolCall } from "@palimpsest/core";
import {
  argumentPaths,
  commandLine,
  isFileRead,
  shellCommand,
  toolArguments,
  toolKind,
} from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

const call = (name: string, args: Record<string, unknown> | string): ToolCall => ({
  id: "c",
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});

describe("toolKind", () => {
  it("tells the kind by the tool's name across agents, case-insensitively", () => {
    const kinds = ["Bash", "execute_bash", "run_terminal_cmd", "exec", "Read", "open", "Write", "create", "MultiEdit"]
      .concat(["str_replace_editor", "Grep", "find_file", "TodoWrite"])
      .map(toolKind);
    expect(kinds).toEqual(
      [
        "shell",
        "shell",
        "shell",
        "shell",
        "read",
        "read",
        "write",
        "write",
        "edit",
        "editor",
        "search",
        "search",
      ].concat(["other"]),
    );
  });
});

describe("toolArguments", () => {
  it("are the JSON object; of arguments a cap cut, the string fields still whole; else undefined", () => {
    expect(toolArguments(call("Bash", { command: "ls" }))).toEqual({ command: "ls" });
    expect(toolArguments(call("Write", '{"file_path": "a.ts", "content": "x\\ny [… 10 chars omitted …]'))).toEqual({
      file_path: "a.ts",
    });
    expect(toolArguments(call("Bash", "[1, 2]"))).toBeUndefined();
    expect(toolArguments(call("Bash", "not json"))).toBeUndefined();
  });
});

describe("shellCommand and commandLine", () => {
  it("are a shell tool's `command` or `cmd`, line endings normalized; its first non-empty line, trimmed", () => {
    expect(shellCommand(call("Bash", { command: "a\r\nb" }))).toBe("a\nb");
    expect(shellCommand(call("exec_command", { cmd: "make" }))).toBe("make");
    expect(shellCommand(call("str_replace_editor", { command: "view", path: "/a" }))).toBeUndefined();
    expect(commandLine("\n  git commit -m \"$(cat <<'EOF'\nmsg\nEOF\n)\"")).toBe("git commit -m \"$(cat <<'EOF'");
  });
});

describe("argumentPaths", () => {
  it("are the path keys' one-line values, trimmed, distinct; none for search or shell tools", () => {
    expect(argumentPaths(call("Edit", { file_path: " /r/a.ts ", old_string: "x" }))).toEqual(["/r/a.ts"]);
    expect(argumentPaths(call("write_file", { filePath: "My Docs/b.md", file: "My Docs/b.md" }))).toEqual([
      "My Docs/b.md",
    ]);
    expect(argumentPaths(call("create", { filename: "c.py" }))).toEqual(["c.py"]);
    expect(argumentPaths(call("Write", { path: "two\nlines", file_path: "x".repeat(501) }))).toEqual([]);
    expect(argumentPaths(call("Grep", { pattern: "x", path: "/r/src" }))).toEqual([]);
    expect(argumentPaths(call("Bash", { command: "cat a.ts", path: "/r" }))).toEqual([]);
  });
});

describe("isFileRead", () => {
  it("is a read tool or an editor's view of a path", () => {
    expect(isFileRead(call("Read", { file_path: "a.ts" }))).toBe(true);
    expect(isFileRead(call("str_replace_editor", { command: "view", path: "/w/a.c" }))).toBe(true);
    expect(isFileRead(call("str_replace_editor", { command: "create", path: "/w/a.c" }))).toBe(false);
    expect(isFileRead(call("Bash", { command: "view" }))).toBe(false);
  });
});
