import {
  buildConversationInstruction,
  buildSummaryPrompt,
  conversationEnd,
  type Message,
  SUMMARY_SECTIONS,
  SUMMARY_SYSTEM_PROMPT,
  type SummaryConversation,
  type SummaryRequest,
} from "@palimpsest/core";
import { describe, expect, it } from "vitest";

const text = (t: string) => [{ type: "text" as const, text: t }];
const SUMMARY =
  "[CONTEXT SUMMARY: REFERENCE ONLY] Earlier turns of this conversation were compacted.\n\n## User Requests";

const conversation: Message[] = [
  { id: "s", role: "system", content: text("You are a coding agent.") },
  { id: "u1", role: "user", content: text("Fix the failing build.\nIt broke yesterday.") },
  {
    id: "a1",
    role: "assistant",
    content: [],
    toolCalls: [{ id: "c1", name: "bash", arguments: '{"command":"npm test"}' }],
  },
  { id: "t1", role: "tool", toolCallId: "c1", content: text("FAIL src/a.test.ts") },
  { id: "sum", role: "user", content: text(SUMMARY) },
  { id: "u2", role: "user", content: text("Continue.") },
  { id: "a2", role: "assistant", content: text("Done with a.") },
  { id: "u3", role: "user", content: text("Continue.") },
  { id: "a3", role: "assistant", content: text(`${"x".repeat(200)} long`) },
];

/** A request over `messages[start..end)` of the conversation, as the runtime fills it in. */
function request(
  start: number,
  end: number,
  extra: Partial<SummaryRequest> = {},
): SummaryRequest & {
  conversation: SummaryConversation;
} {
  const span = conversation.slice(start, end);
  return {
    messages: span.filter((m) => m.id !== "sum"),
    maxOutputTokens: 800,
    conversation: { messages: conversation, start, end },
    ...extra,
  };
}

describe("buildConversationInstruction", () => {
  it("names the span by the message it starts at and the one it stops before, told apart when they repeat", () => {
    const instruction = buildConversationInstruction(request(1, 7));
    expect(instruction).toContain('The span starts at the user message that begins "Fix the failing build."');
    expect(instruction).toContain(
      'ends just before the user message that begins "Continue." (the second of the 2 messages that match this)',
    );
    expect(instruction).not.toContain("It broke yesterday"); // the first line only
    expect(instruction).toContain("the span's user messages, in order, are `u1`, `u2`, for the");
  });

  it("points at a tool call, a tool result and a long line by what the model sees of them", () => {
    expect(buildConversationInstruction(request(2, 3))).toContain(
      'starts at the assistant message that calls `bash` (call `c1`) and ends just before the result of tool call `c1`, which begins "FAIL src/a.test.ts"',
    );
    expect(buildConversationInstruction(request(7, 8))).toContain(
      `ends just before the assistant message that begins "${"x".repeat(80)}"`,
    );
  });

  it("runs through the last message when the span ends the conversation", () => {
    expect(buildConversationInstruction(request(5, 9))).toContain(
      "and runs through the last message above, just before this request",
    );
  });

  it("has an earlier summary in the span folded in, its older messages first", () => {
    const plain = buildConversationInstruction(request(5, 7));
    expect(plain).not.toContain("earlier summary (");
    const folding = buildConversationInstruction(
      request(1, 7, { previousSummary: "## User Requests", previousSummaryAt: 3, previousSummaries: 1 }),
    );
    expect(folding).toContain(
      'The span holds 1 earlier summary (a message beginning "[CONTEXT SUMMARY: REFERENCE ONLY]"): that is the previous summary.',
    );
    expect(folding).toContain("never nested inside the new one");
    expect(folding).toContain("before the first earlier summary happened before everything it covers");
  });

  it("asks for no tool call, the sections, the recovery lines, the cap and the budget of the plain prompt", () => {
    const r = request(1, 7, { previousSummary: "## User Requests", previousSummaryAt: 3 });
    const instruction = buildConversationInstruction(r, {
      toolOutputChars: 100,
      toolArgumentChars: 100,
      messageChars: 900,
    });
    expect(instruction).toContain("do not call any tool");
    for (const section of SUMMARY_SECTIONS) {
      expect(instruction).toContain(`## ${section}`);
      expect(SUMMARY_SYSTEM_PROMPT).toContain(`## ${section}`);
    }
    const recovery = /<recovery-lines>\n[\s\S]*?\n<\/recovery-lines>/;
    expect(instruction.match(recovery)?.[0]).toBe(buildSummaryPrompt(r).match(recovery)?.[0]);
    expect(instruction).toContain("- Superseded 5 messages and 1 earlier summary: u1 … a2");
    expect(instruction).toContain("in at most 800 tokens (about 560 words)");
    expect(instruction).toContain("a user request over 900 characters may be cut");
  });
});

describe("where a summarizer's conversation ends", () => {
  const entries = conversation.map((message) => ({ message }));
  const lastReply = conversation.findLastIndex((m) => m.role === "assistant");

  it("is just before the last reply (the agent's last request), however early the span ends", () => {
    for (let end = 0; end <= lastReply; end++) expect(conversationEnd(entries, end)).toBe(lastReply);
  });

  it("is the span's end when the span runs past the last reply, and the whole view without a reply", () => {
    expect(conversationEnd(entries, conversation.length)).toBe(conversation.length);
    expect(conversationEnd(entries.slice(0, 2), 1)).toBe(2);
  });
});
