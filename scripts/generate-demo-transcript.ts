/**
 * Generates examples/demo-session.jsonl: a deterministic, realistic tool-heavy coding-agent session in
 * OpenAI chat JSONL (one message per line). Run: `pnpm tsx scripts/generate-demo-transcript.ts`.
 */
import { writeFileSync } from "node:fs";

type Msg = Record<string, unknown>;

let seed = 42;
function rand(): number {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
}

const files = ["src/parser.ts", "src/lexer.ts", "src/ast.ts", "src/eval.ts", "test/parser.test.ts", "README.md"];

function sourceFile(name: string, lines: number): string {
  const out = [`// ${name}`, `import { Token, TokenKind } from "./lexer";`, ""];
  for (let i = 0; i < lines; i++) {
    const n = Math.floor(rand() * 1000);
    out.push(
      i % 7 === 0
        ? `export function rule${n}(tokens: Token[], pos: number): Node | undefined {`
        : `  if (tokens[pos]?.kind === TokenKind.Ident && depth < ${n}) return parseExpr(tokens, pos + ${i % 5});`,
    );
  }
  return out.join("\n");
}

function testLog(failures: number): string {
  const out = ["> vitest run", "", " RUN  v4.1.12 /workspace/calc", ""];
  for (let i = 0; i < 60; i++) {
    const fail = i < failures;
    out.push(` ${fail ? "✗" : "✓"} test/parser.test.ts > parses case ${i} (${Math.floor(rand() * 40)}ms)`);
    if (fail) {
      out.push(`   AssertionError: expected { kind: 'Binary', op: '+' } to deeply equal { kind: 'Binary', op: '*' }`);
      out.push(`    ❯ test/parser.test.ts:${100 + i}:23`);
    }
  }
  out.push(
    "",
    ` Test Files  ${failures > 0 ? 1 : 0} failed | 3 passed (4)`,
    `      Tests  ${failures} failed | ${60 - failures} passed (60)`,
  );
  return out.join("\n");
}

const messages: Msg[] = [
  {
    role: "system",
    content:
      "You are a careful coding agent working in /workspace/calc. Use the tools to read, search, edit and test. Keep answers short.",
  },
  {
    role: "user",
    content:
      "The parser gets operator precedence wrong: 1 + 2 * 3 evaluates to 9. Please fix it and make the tests pass.",
  },
];
let callN = 0;
function call(name: string, args: Record<string, unknown>, output: string, thought: string): void {
  const id = `call_${String(++callN).padStart(3, "0")}`;
  messages.push({
    role: "assistant",
    content: thought,
    tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
  });
  messages.push({ role: "tool", tool_call_id: id, content: output });
}

call("run_tests", { command: "pnpm test" }, testLog(7), "Let me run the tests first to see what fails.");
for (const f of files.slice(0, 4))
  call("read_file", { path: f }, sourceFile(f, 120 + Math.floor(rand() * 80)), `Reading ${f}.`);
call(
  "grep",
  { pattern: "precedence", path: "src" },
  files.map((f) => `${f}:${Math.floor(rand() * 300)}: // precedence table`).join("\n"),
  "Searching for the precedence table.",
);
for (let round = 0; round < 6; round++) {
  call(
    "edit_file",
    { path: "src/parser.ts", old: `PRECEDENCE[${round}]`, new: `PRECEDENCE[${round + 1}]` },
    `Edited src/parser.ts: 1 replacement at line ${120 + round * 9}.`,
    `Adjusting the binding power of level ${round}.`,
  );
  call(
    "run_tests",
    { command: "pnpm test test/parser.test.ts" },
    testLog(Math.max(0, 6 - round)),
    "Re-running the parser tests.",
  );
}
messages.push({
  role: "assistant",
  content: "All 60 parser tests pass now: `*` and `/` bind tighter than `+` and `-`.",
});
messages.push({
  role: "user",
  content: "Great. Also add a regression test for 2 ** 3 ** 2 (right-associative) and update the README.",
});
call(
  "read_file",
  { path: "README.md" },
  `# calc\n\nA tiny calculator.\n\n${"Usage: calc '<expr>'\n".repeat(20)}`,
  "Reading the README.",
);
call(
  "edit_file",
  { path: "test/parser.test.ts", append: "it('** is right-associative', ...)" },
  "Appended 9 lines.",
  "Adding the regression test.",
);
call("run_tests", { command: "pnpm test" }, testLog(1), "Running everything.");
call(
  "edit_file",
  { path: "src/parser.ts", old: "assoc: 'left'", new: "assoc: 'right'" },
  "Edited src/parser.ts: 1 replacement.",
  "Exponent must be right-associative.",
);
call("run_tests", { command: "pnpm test" }, testLog(0), "Running everything again.");
call(
  "edit_file",
  { path: "README.md", append: "## Precedence\n..." },
  "Appended 12 lines.",
  "Documenting precedence in the README.",
);
messages.push({
  role: "assistant",
  content:
    "Done: the regression test passes (2 ** 3 ** 2 = 512) and the README documents precedence and associativity.",
});
messages.push({ role: "user", content: "Thanks! One last thing: what was the root cause?" });
messages.push({
  role: "assistant",
  content:
    "The precedence table listed `+` and `*` at the same level, so the Pratt loop folded left to right. Each level now has its own binding power.",
});

writeFileSync(
  new URL("../examples/demo-session.jsonl", import.meta.url),
  `${messages.map((m) => JSON.stringify(m)).join("\n")}\n`,
);
console.log(`wrote examples/demo-session.jsonl: ${messages.length} messages, ${callN} tool calls`);
