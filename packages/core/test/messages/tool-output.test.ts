import type { ToolCall } from "@palimpsest/core";
import { isFileContent, isFileListing } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

const call = (name: string, args: Record<string, unknown>): ToolCall => ({
  id: "c",
  name,
  arguments: JSON.stringify(args),
});

describe("isFileListing", () => {
  it("is three or more non-empty lines, half of them numbered as viewers print them", () => {
    expect(isFileListing("   12→a\n   13→b\n   14→c")).toBe(true);
    expect(isFileListing("[File: a.py]\n1486:  try:\n1487:  except:\n")).toBe(true);
    expect(isFileListing("12\tx\n13\ty")).toBe(false);
    expect(isFileListing("FAILED test_a\n2 failed\nTypeError: x")).toBe(false);
  });
});

describe("isFileContent", () => {
  it("is a read's or a search's result, or numbered lines; a shell's outcome or an unknown call's is not", () => {
    expect(isFileContent(call("Read", { file_path: "a.py" }), "raise KeyError")).toBe(true);
    expect(isFileContent(call("Grep", { pattern: "Error" }), "a.py:3:raise KeyError")).toBe(true);
    expect(isFileContent(call("Bash", { command: "pytest" }), "KeyError: 1")).toBe(false);
    expect(isFileContent(undefined, "KeyError: 1")).toBe(false);
    expect(isFileContent(call("Bash", { command: "cat -n a.py" }), "1  a\n2  b\n3  c")).toBe(true);
  });
});
