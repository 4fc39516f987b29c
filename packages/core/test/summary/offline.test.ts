import { type Message, OFFLINE_MODEL, OfflineSummarizer, SummarizerError } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

const text = (t: string) => [{ type: "text" as const, text: t }];

const SPAN: Message[] = [
  {
    id: "u1",
    role: "user",
    content: text("Fix the failing test in packages/core/src/a.ts (see PR #42). Key: sk-proj-abcdefghijklmnop1234"),
  },
  {
    id: "a1",
    role: "assistant",
    content: text("Reading the file."),
    toolCalls: [
      { id: "c1", name: "read_file", arguments: '{"file_path":"packages/core/src/a.ts"}' },
      { id: "c2", name: "bash", arguments: '{"command":"npm test"}' },
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
  { id: "a2", role: "assistant", content: text("Fixed in commit 0ad5bef; all tests pass.") },
];

const summarize = (messages: Message[], maxOutputTokens = 2_000, previousSummary?: string) =>
  new OfflineSummarizer().summarize(
    previousSummary === undefined ? { messages, maxOutputTokens } : { messages, maxOutputTokens, previousSummary },
  );

describe("OfflineSummarizer", () => {
  it("is deterministic and names itself", async () => {
    const a = await summarize(SPAN);
    const b = await summarize(structuredClone(SPAN));
    expect(a.text).toBe(b.text);
    expect(new OfflineSummarizer().model).toBe(OFFLINE_MODEL);
  });

  it("writes every section: user messages verbatim, actions with outcomes, state, errors, files, index", async () => {
    const { text: summary } = await summarize(SPAN);
    for (const heading of [
      "User Messages (verbatim)",
      "Completed Actions",
      "Active State",
      "Errors & Fixes",
      "Relevant Files",
      "Index",
    ]) {
      expect(summary).toContain(`## ${heading}`);
    }
    expect(summary).toContain("- Fix the failing test in packages/core/src/a.ts (see PR #42). Key: [REDACTED]");
    expect(summary).toContain("read_file(file_path=packages/core/src/a.ts) → ok");
    expect(summary).toContain("bash(command=npm test) → error: TypeError: a is not a function");
    expect(summary).toContain("- packages/core/src/a.ts");
    expect(summary).toContain("- test/a.test.ts");
    expect(summary).toContain("- commit 0ad5bef");
    expect(summary).toContain("- PR/issue #42");
    expect(summary).toContain("- error TypeError");
    expect(summary).toContain("Fixed in commit 0ad5bef; all tests pass.");
    expect(summary).not.toContain("abcdefghijklmnop1234");
  });

  it("merges a previous summary instead of nesting it", async () => {
    const first = await summarize(SPAN);
    const later: Message[] = [
      { id: "u2", role: "user", content: text("Now document it in README.md") },
      {
        id: "a3",
        role: "assistant",
        content: text("Documented."),
        toolCalls: [{ id: "c3", name: "edit", arguments: '{"path":"README.md"}' }],
      },
      { id: "t3", role: "tool", toolCallId: "c3", content: text("ok") },
    ];
    const prefixed = `REFERENCE ONLY: earlier turns, summarized.\n\n${first.text}\n\n## Key Decisions\n- keep the API`;
    const { text: merged } = await summarize(later, 2_000, prefixed);
    expect(merged.match(/## User Messages/g)).toHaveLength(1);
    expect(merged).not.toContain("REFERENCE ONLY");
    expect(merged).toContain("- Fix the failing test");
    expect(merged).toContain("- Now document it in README.md");
    expect(merged).toContain("## Key Decisions\n- keep the API");
    expect(merged.match(/- packages\/core\/src\/a\.ts/g)).toHaveLength(1);
    expect(merged).toContain("- README.md");
    expect(merged).toContain("## Active State\n- Documented.");
    expect(merged).not.toContain("all tests pass");
    const again = await summarize(later, 2_000, merged);
    expect(again.text).toBe(merged);
  });

  it("carries a heading-less previous summary as earlier context", async () => {
    const { text: merged } = await summarize(SPAN, 2_000, "We were migrating the store to Kysely.");
    expect(merged).toContain("## Earlier Context\nWe were migrating the store to Kysely.");
  });

  it("respects the budget by dropping actions first and keeps the latest request and state", async () => {
    const many: Message[] = [];
    for (let i = 0; i < 200; i++) {
      many.push({ id: `u${i}`, role: "user", content: text(`request number ${i}`) });
      many.push({
        id: `a${i}`,
        role: "assistant",
        content: text(`step ${i}`),
        toolCalls: [{ id: `c${i}`, name: "bash", arguments: `{"command":"make target-${i}"}` }],
      });
      many.push({ id: `t${i}`, role: "tool", toolCallId: `c${i}`, content: text(`built out/file-${i}.js`) });
    }
    const { text: small } = await summarize(many, 300);
    expect(small.length).toBeLessThanOrEqual(1_200);
    expect(small).toContain("request number 199");
    expect(small).toContain("## Active State\n- step 199");
    expect(small).not.toContain("make target-0");
  });

  it("throws SummarizerError timeout on an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await new OfflineSummarizer()
      .summarize({ messages: SPAN, maxOutputTokens: 100 }, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SummarizerError);
    expect((error as SummarizerError).details.reason).toBe("timeout");
  });
});
