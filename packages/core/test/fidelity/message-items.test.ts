import { conversationItems, FidelityExtractor } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";
import { measuredNumbers } from "../../src/messages/measured-numbers.ts";
import { shellCommandPaths } from "../../src/messages/shell-paths.ts";
import { assistant, result, user } from "../support/messages.ts";

describe("user requests", () => {
  it("are the user's text verbatim with line endings normalized, not harness text nor orphan results", () => {
    const items = conversationItems([
      user("Fix the build\r\nthen run the tests  "),
      user("<task-notification>\n<task-id>b1</task-id>\n</task-notification>"),
      user("[Request interrupted by user for tool use]"),
      user("Base directory for this skill: /home/u/.claude/skills/x\n\n# X"),
      user("[tool result for unknown call x]", { orphanToolResult: true }),
      user("   "),
    ]);
    expect(items.map((i) => i.userRequests)).toEqual([["Fix the build\nthen run the tests"], [], [], [], [], []]);
  });

  it("never come from assistant text or tool results", () => {
    const items = conversationItems([
      assistant("please fix it", ["c1", "Bash", { command: "true" }]),
      result("c1", "x"),
    ]);
    expect(items.flatMap((i) => i.userRequests)).toEqual([]);
  });
});

describe("file paths", () => {
  it("are the file arguments of read, write and edit calls, not a search tool's root", () => {
    const [calls] = conversationItems([
      assistant(
        "",
        ["c1", "Read", { file_path: "/repo/src/a.ts" }],
        ["c2", "Edit", { file_path: "/repo/src/b.ts", old_string: "x", new_string: "y" }],
        ["c3", "str_replace_editor", { command: "create", path: "/w/c.py" }],
        ["c4", "Glob", { pattern: "**/*.ts", path: "/repo" }],
        ["c5", "Grep", { pattern: "foo", path: "/repo/src" }],
        ["c6", "find_file", { file_name: "x.py", dir: "/w" }],
      ),
    ]);
    expect(calls?.filePaths).toEqual(["/repo/src/a.ts", "/repo/src/b.ts", "/w/c.py"]);
  });

  it("come from the arguments of shell commands, never from what a listing printed", () => {
    const items = conversationItems([
      assistant("", ["c1", "Bash", { command: "ls -la src && find . -name '*.ts'" }]),
      result("c1", "src/a.ts\nsrc/b.ts\n./test/c.test.ts"),
      assistant("", ["c2", "bash", { command: "cat src/a.ts | head -5 > /tmp/out.txt 2>/dev/null" }]),
    ]);
    expect(items.flatMap((i) => i.filePaths)).toEqual(["src/a.ts", "/tmp/out.txt"]);
  });

  it("skip scripts, patterns, tasks, refs and heredoc bodies", () => {
    expect(shellCommandPaths("sed -n 's/a/b/p' lib/x.ex")).toEqual(["lib/x.ex"]);
    expect(shellCommandPaths("grep -rn foo/bar src/app.ts")).toEqual(["src/app.ts"]);
    expect(shellCommandPaths("mix ecto.migrate && mix test test/a_test.exs:12")).toEqual(["test/a_test.exs"]);
    expect(shellCommandPaths("git log --oneline master..HEAD && git push origin feature/x")).toEqual([]);
    expect(shellCommandPaths("git add lib/a.ex .beads/ && git commit -m 'edit lib/b.ex'")).toEqual([
      "lib/a.ex",
      ".beads/",
    ]);
    expect(shellCommandPaths("cat > notes.md << 'EOF'\nsee docs/other.md\nEOF\n./run.sh")).toEqual([
      "notes.md",
      "./run.sh",
    ]);
    expect(shellCommandPaths("cd /repo && echo done/yes.txt && python -c 'open(\"x.py\")'")).toEqual([]);
    expect(shellCommandPaths("make test 2>&1 | tee out.log >> all.log && ./bin/run.sh < in.txt")).toEqual([
      "out.log",
      "all.log",
      "./bin/run.sh",
      "in.txt",
    ]);
    expect(shellCommandPaths("curl https://example.com/a.json -o $HOME/x.json && bd show spotter-dov.1")).toEqual([]);
  });
});

describe("commands", () => {
  it("are the first line of each shell call's command, not an editor's `command` argument", () => {
    const [calls] = conversationItems([
      assistant(
        "",
        ["c1", "Bash", { command: "git commit -m \"$(cat <<'EOF'\nmessage\nEOF\n)\"" }],
        ["c2", "execute_bash", { command: "  mix test  " }],
        ["c3", "str_replace_editor", { command: "view", path: "/w/a.c" }],
      ),
    ]);
    expect(calls?.commands).toEqual(["git commit -m \"$(cat <<'EOF'", "mix test"]);
  });
});

describe("error names", () => {
  it("come from tool results, not from file reads, search hits nor assistant text", () => {
    const items = conversationItems([
      assistant(
        "a KeyError maybe",
        ["r", "Read", { file_path: "a.py" }],
        ["g", "Grep", { pattern: "Error" }],
        ["b", "Bash", { command: "pytest" }],
      ),
      result("r", "class ValidationError(Exception): ..."),
      result("g", "src/a.py:3:raise LookupError"),
      result("b", "E   AssertionError: 1 != 2", true),
    ]);
    expect(items.flatMap((i) => i.errorNames)).toEqual(["AssertionError"]);
  });

  it("skip a result that shows a file's numbered lines, whatever tool printed it", () => {
    const items = conversationItems([
      assistant("", ["e", "edit", { search: "a", replace: "b" }], ["b", "bash", { command: "python t.py" }]),
      result("e", "[File: src/f.py (20 lines total)]\n1486:        try:\n1487:    except OverflowError:\n1488:  raise"),
      result("b", "Traceback (most recent call last):\n  line 3\nOverflowError: 1.5 s"),
    ]);
    expect(items.flatMap((i) => i.errorNames)).toEqual(["OverflowError"]);
    expect(items.flatMap((i) => i.numbers)).toEqual(["1.5s"]);
    expect(items[1]?.errorNames).toEqual([]);
  });
});

describe("measured numbers", () => {
  it("have a decimal or a unit, canonically without the space; not integers, versions, times or ids", () => {
    expect(
      measuredNumbers(
        "took 16 ms (16ms again), 0.93 s, 50 MB, 85%, 3.5x, 1,200 tokens; line 42, v1.2, 1.2.3, 12:30.5, abc1.5, " +
          "127.0.0.1, in 2 steps, 2024-01-02",
      ),
    ).toEqual(["16ms", "0.93s", "50MB", "85%", "3.5x", "1,200tokens"]);
  });

  it("end at a comma no digit follows, as in a list; a comma between digits groups thousands or is no number", () => {
    expect(measuredNumbers("1.4, 1.5, 2,500.5 and 0.3, then 12,345 ms")).toEqual([
      "1.4",
      "1.5",
      "2,500.5",
      "0.3",
      "12,345ms",
    ]);
    // A decimal comma, or a grouping that is not of thousands, gives no number rather than its last digits.
    expect(measuredNumbers("took 1,5 s, 10,5% and 1,234,56 ms")).toEqual([]);
  });

  it("come from tool output and assistant text, not from user text nor file reads", () => {
    const items = conversationItems([
      user("make it 2.5x faster"),
      assistant("now 12.5 ms", ["r", "Read", { file_path: "a.json" }], ["b", "Bash", { command: "bench" }]),
      result("r", '{"ratio": 0.75}'),
      result("b", "median 3.25 ms"),
    ]);
    expect(items.flatMap((i) => i.numbers)).toEqual(["12.5ms", "3.25ms"]);
  });
});

describe("FidelityExtractor", () => {
  it("reads a tool result by the call it answers, across messages", () => {
    const extractor = new FidelityExtractor();
    extractor.items(assistant("", ["v", "str_replace_editor", { command: "view", path: "/w/a.py" }]));
    expect(extractor.items(result("v", "raise KeyError")).errorNames).toEqual([]);
    expect(extractor.items(result("unknown", "raise KeyError")).errorNames).toEqual(["KeyError"]);
  });
});
