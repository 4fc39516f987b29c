import {
  FIDELITY_KINDS,
  type Message,
  OfflineSummarizer,
  SUMMARY_SECTIONS,
  SummarizerError,
  serializeForSummary,
} from "@palimpsest/core";
import { conversationItems, OFFLINE_MODEL, ReplacementText } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

const text = (t: string) => [{ type: "text" as const, text: t }];

/** A multi-line request with indentation, a blank line and a fence of its own. */
const MULTI_LINE =
  "Fix the failing test in packages/core/src/a.ts.\n  - keep the API\n\n```ts\nconst a = 1;\n```\nNever push to main.";

const SPAN: Message[] = [
  { id: "u1", role: "user", content: text(`${MULTI_LINE} Key: sk-proj-abcdefghijklmnop1234`) },
  {
    id: "a1",
    role: "assistant",
    content: text("Reading the file."),
    toolCalls: [
      { id: "c1", name: "Read", arguments: '{"file_path":"packages/core/src/a.ts"}' },
      { id: "c2", name: "Bash", arguments: '{"command":"npm test"}' },
      { id: "c3", name: "Bash", arguments: `{"command":"find . -name '*.css'"}` },
      { id: "c4", name: "Edit", arguments: '{"file_path":"packages/core/src/a.ts","old_string":"1","new_string":"2"}' },
    ],
  },
  { id: "t1", role: "tool", toolCallId: "c1", content: text("export const a = 1;") },
  {
    id: "t2",
    role: "tool",
    toolCallId: "c2",
    isError: true,
    content: text("TypeError: a is not a function\n  at test/a.test.ts:3:1"),
  },
  {
    id: "t3",
    role: "tool",
    toolCallId: "c3",
    content: text("node_modules/highlight.js/styles/a11y-dark.css\nnode_modules/highlight.js/styles/github.css"),
  },
  { id: "t4", role: "tool", toolCallId: "c4", content: text("The file was updated.") },
  { id: "a2", role: "assistant", content: text("Fixed; all tests pass. Next I will update the README.") },
];

const summarize = (
  messages: Message[],
  maxOutputTokens = 2_000,
  previousSummary?: string,
  previousSummaryAt?: number,
) =>
  new OfflineSummarizer().summarize({
    messages,
    maxOutputTokens,
    ...(previousSummary === undefined ? {} : { previousSummary }),
    ...(previousSummaryAt === undefined ? {} : { previousSummaryAt }),
  });

/** The body of one `## title` section (empty when absent). */
function section(summary: string, title: string): string {
  const start = summary.indexOf(`## ${title}\n`);
  if (start === -1) return "";
  const next = summary.indexOf("\n## ", start + 1);
  return summary.slice(start, next === -1 ? undefined : next);
}

describe("OfflineSummarizer", () => {
  it("is deterministic and names itself", async () => {
    const a = await summarize(SPAN);
    const b = await summarize(structuredClone(SPAN));
    expect(a.text).toBe(b.text);
    expect(new OfflineSummarizer().model).toBe(OFFLINE_MODEL);
  });

  it("writes the sections in order: requests verbatim, constraints, files, commands, errors, state, recovery", async () => {
    const { text: summary } = await summarize(SPAN);
    const at = SUMMARY_SECTIONS.map((title) => summary.indexOf(`## ${title}\n`));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
    expect(summary).toContain(`\n${MULTI_LINE} Key: [REDACTED]\n`);
    expect(summary).not.toContain("abcdefghijklmnop1234");
    expect(section(summary, "Constraints & Decisions")).toContain("- Never push to main.");
    expect(section(summary, "Files")).toContain("- `packages/core/src/a.ts`: read, edited");
    const commands = section(summary, "Commands");
    expect(commands.indexOf("✗ `npm test`: TypeError: a is not a function")).toBeGreaterThan(-1);
    expect(commands.indexOf("✗ `npm test`")).toBeLessThan(commands.indexOf("✓ `find . -name '*.css'`"));
    expect(section(summary, "Errors")).toContain("- Also named: TypeError");
    expect(summary.split("TypeError: a is not a function")).toHaveLength(2);
    // The last message is short: it says its next step, and the state does not repeat it.
    expect(section(summary, "Current State")).toContain(
      "Last assistant message: Fixed; all tests pass. Next I will update the README.",
    );
    expect(section(summary, "Current State")).not.toContain("Next step:");
    const recovery = section(summary, "Recovery");
    expect(recovery).toContain("Superseded 7 messages: u1 … a2");
    expect(recovery).toContain("`palimpsest expand <session> <compaction-id> --deep`");
  });

  it("names the next step of a last message its line may be shortened from, so it outlasts the cut", async () => {
    const lastMessage = async (body: string) =>
      section(
        (
          await summarize([
            { id: "u1", role: "user", content: text("Fix the parser.") },
            { id: "a1", role: "assistant", content: text(body) },
          ])
        ).text,
        "Current State",
      );
    const around = (n: number) =>
      `${"I checked the lexer. ".repeat(n)}Next I will update the README. ${"Done. ".repeat(n)}`;
    // The line holds its label too: past 400 characters in all, the fit may shorten it, so the step is apart.
    const near = around(13).trim();
    expect(`Last assistant message: ${near}`.length).toBeGreaterThan(400);
    expect(near.length).toBeLessThanOrEqual(400);
    expect(await lastMessage(near)).toContain("Next step: Next I will update the README.");
    const short = around(4).trim();
    expect(`Last assistant message: ${short}`.length).toBeLessThanOrEqual(400);
    expect(await lastMessage(short)).not.toContain("Next step:");
  });

  it("lists the files tool calls touched, not the paths a find printed", async () => {
    const { text: summary } = await summarize(SPAN);
    expect(summary).not.toContain("highlight.js");
    expect(section(summary, "Files").match(/^- /gm)).toHaveLength(1);
  });

  it("keeps every error name, also one in the middle the serializer cut and one whose line was dropped", async () => {
    const long = `${"ok\n".repeat(800)}** (CompileError) lib/a.ex:3: undefined function\n${"ok\n".repeat(800)}`;
    const messages: Message[] = [
      { id: "u1", role: "user", content: text("build it") },
      {
        id: "a1",
        role: "assistant",
        content: [],
        toolCalls: [
          { id: "c1", name: "Bash", arguments: '{"command":"mix compile"}' },
          { id: "c2", name: "Bash", arguments: '{"command":"node x.js"}' },
        ],
      },
      { id: "t1", role: "tool", toolCallId: "c1", content: text(long) },
      {
        id: "t2",
        role: "tool",
        toolCallId: "c2",
        isError: true,
        content: text("Error: ENOENT: no such file or directory, open 'x.json'"),
      },
    ];
    const { text: summary } = await summarize(messages);
    expect(summary).toContain("CompileError");
    expect(summary).toContain("ENOENT");
    const filler: Message[] = Array.from({ length: 60 }, (_, i) => ({
      id: `f${i}`,
      role: "assistant" as const,
      content: [],
      toolCalls: [{ id: `fc${i}`, name: "Bash", arguments: `{"command":"echo step-${i} ${"y".repeat(80)}"}` }],
    })).flatMap((m, i) => [m, { id: `ft${i}`, role: "tool" as const, toolCallId: `fc${i}`, content: text("ok") }]);
    const { text: tight } = await summarize([...messages, ...filler], 600);
    expect(tight).toContain("CompileError");
    expect(tight).toContain("ENOENT");
  });

  it("keeps the command of a shell call whose arguments the serializer cut (a long python -c or heredoc)", async () => {
    const script = Array.from({ length: 120 }, (_, i) => `print("step ${i}", compute(${i}))`).join("\n");
    const command = `cd /testbed && python -c "\n${script}\n"`;
    const messages: Message[] = [
      { id: "u1", role: "user", content: text("trace the rename") },
      {
        id: "a1",
        role: "assistant",
        content: [],
        toolCalls: [{ id: "c1", name: "bash", arguments: JSON.stringify({ command, timeout: 60 }) }],
      },
      { id: "t1", role: "tool", toolCallId: "c1", content: text("step 0 ok") },
    ];
    // The arguments are longer than the serializer keeps (2,000 characters): cut, they stay JSON.
    expect(JSON.stringify({ command }).length).toBeGreaterThan(3_000);
    const [serialized] = serializeForSummary(messages).slice(1);
    const args = serialized?.toolCalls?.[0]?.arguments ?? "";
    expect(args.length).toBeLessThanOrEqual(2_000);
    expect(JSON.parse(args)).toMatchObject({
      command: expect.stringMatching(/^cd \/testbed && python -c "\n/),
      timeout: 60,
    });
    expect(serializeForSummary(serializeForSummary(messages))).toEqual(serializeForSummary(messages)); // idempotent
    const { text: summary } = await summarize(messages);
    expect(summary).toContain('`cd /testbed && python -c "');
    const [, call] = conversationItems(messages);
    for (const item of call?.commands ?? []) expect(new ReplacementText(summary).holds("commands", item)).toBe(true);
  });

  it("does not list what the harness writes in the user's role as a request", async () => {
    const { text: summary } = await summarize([
      { id: "u1", role: "user", content: text("<local-command-stdout>Compacted</local-command-stdout>") },
      {
        id: "u3",
        role: "user",
        content: text("Base directory for this skill: /skills/hex\n\n# Hex search\nLong body"),
      },
      { id: "u2", role: "user", content: text("Real request") },
    ]);
    expect(summary).not.toContain("Compacted");
    expect(summary).not.toContain("Long body");
    expect(summary).toContain("- Skill loaded: /skills/hex\n");
    expect(summary).toContain("[request 1]\n```\nReal request\n```");
  });

  it("reads messages by fidelity's rules, so it holds every item fidelity counts and no other", async () => {
    const span: Message[] = [
      { id: "u1", role: "user", content: text("  Find why the server fails\r\n") },
      {
        id: "u2",
        role: "user",
        content: text("[tool result for unknown call x] ok"),
        metadata: { orphanToolResult: true },
      },
      {
        id: "a1",
        role: "assistant",
        content: [],
        toolCalls: [
          { id: "g", name: "Grep", arguments: '{"pattern":"Error","path":"/srv/app/lib"}' },
          { id: "r", name: "read_file", arguments: '{"filePath":"/srv/app/lib/server.py"}' },
          { id: "b", name: "exec_command", arguments: '{"cmd":"python -m app\n"}' },
        ],
      },
      { id: "t1", role: "tool", toolCallId: "g", content: text("lib/db.py:9:raise LookupError") },
      { id: "t2", role: "tool", toolCallId: "r", content: text("class ConfigError(Exception): pass") },
      { id: "t3", role: "tool", toolCallId: "b", isError: true, content: text("OSError: [Errno 98] in use") },
    ];
    const { text: summary } = await summarize(span);
    const held = new ReplacementText(summary);
    const items = conversationItems(span);
    for (const kind of FIDELITY_KINDS)
      for (const item of items.flatMap((i) => i[kind])) expect(held.holds(kind, item)).toBe(true);
    expect(items.flatMap((i) => i.errorNames)).toEqual(["OSError"]);
    expect(section(summary, "User Requests")).not.toContain("unknown call");
    expect(section(summary, "Files")).not.toContain("/srv/app/lib`");
    expect(summary).not.toMatch(/LookupError|ConfigError/);
  });

  it("keeps every measured number of one source when its budget has room, and drops them only for the budget", async () => {
    const timings = Array.from({ length: 40 }, (_, i) => `test_${i} passed in ${i}.${i % 9}5s`).join("\n");
    const span: Message[] = [
      { id: "u1", role: "user", content: text("Run the suite.") },
      {
        id: "a1",
        role: "assistant",
        content: [],
        toolCalls: [{ id: "c1", name: "bash", arguments: '{"command":"pytest"}' }],
      },
      { id: "t1", role: "tool", toolCallId: "c1", content: text(timings) },
    ];
    const numbers = conversationItems(span).flatMap((i) => i.numbers);
    expect(numbers).toHaveLength(40);
    const roomy = new ReplacementText((await summarize(span, 2_000)).text);
    for (const n of numbers) expect(roomy.holds("numbers", n)).toBe(true);
    const tight = new ReplacementText((await summarize(span, 60)).text);
    expect(numbers.filter((n) => tight.holds("numbers", n)).length).toBeLessThan(40);
  });

  it("merges a previous summary section by section instead of nesting it", async () => {
    const first = await summarize(SPAN);
    const later: Message[] = [
      { id: "u2", role: "user", content: text("Now document it in README.md") },
      {
        id: "a3",
        role: "assistant",
        content: text("Documented."),
        toolCalls: [{ id: "c5", name: "Edit", arguments: '{"file_path":"packages/core/src/a.ts"}' }],
      },
      { id: "t5", role: "tool", toolCallId: "c5", content: text("ok") },
    ];
    const { text: merged } = await summarize(later, 2_000, first.text);
    for (const title of SUMMARY_SECTIONS) expect(merged.split(`## ${title}\n`)).toHaveLength(2);
    expect(merged.split(MULTI_LINE)).toHaveLength(2);
    expect(merged.indexOf(MULTI_LINE)).toBeLessThan(merged.indexOf("Now document it in README.md"));
    expect(section(merged, "Files")).toContain("- `packages/core/src/a.ts`: read, edited ×2");
    expect(section(merged, "Current State")).toContain("Documented.");
    expect(merged).not.toContain("all tests pass");
    expect(section(merged, "Recovery")).toContain(
      "Superseded 10 messages and 1 earlier summary in 2 compactions: u1 … t5",
    );
  });

  it("summarizes an exchange of file reads only (a micro pass): the files are its content", async () => {
    const { text: summary } = await summarize([
      {
        id: "a1",
        role: "assistant",
        content: [],
        toolCalls: [{ id: "c1", name: "Read", arguments: '{"file_path":"a.ts"}' }],
      },
      { id: "t1", role: "tool", toolCallId: "c1", content: text("export {}") },
    ]);
    expect(summary).toContain("- `a.ts`: read");
  });

  it("updates a model-written summary: its items merged, its None placeholders dropped", async () => {
    const written = [
      "## User Requests\n[request 1 · u0]\n```text\nShip v2.\n```",
      "## Constraints & Decisions\nNone",
      "## Files\n- `src/v2.ts`: edited",
      "## Commands\n- ✗ `npm run build`: TS2345",
      "## Errors\n- None",
      "## Current State\nNone",
      "## Recovery\n- Superseded 3 messages: m1 … m3",
    ].join("\n\n");
    const { text: merged } = await summarize(SPAN, 2_000, written);
    expect(merged).not.toMatch(/None/);
    expect(merged.indexOf("Ship v2.")).toBeLessThan(merged.indexOf(MULTI_LINE));
    expect(section(merged, "Files")).toContain("- `src/v2.ts`: edited\n- `packages/core/src/a.ts`: read, edited");
    expect(section(merged, "Commands")).toContain("✗ `npm run build`: TS2345");
    expect(section(merged, "Recovery")).toContain(
      "Superseded 10 messages and 1 earlier summary in 2 compactions: m1 … a2",
    );
  });

  it("carries a heading-less previous summary as earlier context", async () => {
    const { text: merged } = await summarize(SPAN, 2_000, "We were migrating the store to Kysely.");
    expect(merged).toContain("## Earlier Context\nWe were migrating the store to Kysely.");
  });

  it("throws SummarizerError timeout on an aborted signal, and empty on nothing to summarize", async () => {
    const controller = new AbortController();
    controller.abort();
    const aborted = await new OfflineSummarizer()
      .summarize({ messages: SPAN, maxOutputTokens: 100 }, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect((aborted as SummarizerError).details.reason).toBe("timeout");
    const empty = await summarize([]).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(SummarizerError);
    expect((empty as SummarizerError).details.reason).toBe("empty");
  });
});
