import { type ImportedSession, type Message, parseTranscript, ValidationError } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

const messagesOf = (s: ImportedSession | undefined): Message[] =>
  (s?.items ?? []).flatMap((i) => (i.kind === "message" ? [i.message] : []));
const base = { sessionId: "S1", isSidechain: false, userType: "external", version: "2.1.39" };
const user = (uuid: string, parentUuid: string | null, content: unknown, extra: object = {}) => ({
  ...base,
  type: "user",
  uuid,
  parentUuid,
  message: { role: "user", content },
  ...extra,
});
const assistant = (
  uuid: string,
  parentUuid: string,
  id: string,
  block: object,
  usage?: object,
  extra: object = {},
) => ({
  ...base,
  type: "assistant",
  uuid,
  parentUuid,
  message: { id, role: "assistant", model: "claude-opus-4-6", content: [block], ...(usage ? { usage } : {}) },
  ...extra,
});
const usage = (output: number) => ({
  input_tokens: 10,
  output_tokens: output,
  cache_creation_input_tokens: 100,
  cache_read_input_tokens: 1000,
});
const toolResult = (id: string, content: unknown, isError?: boolean) => ({
  type: "tool_result",
  tool_use_id: id,
  content,
  ...(isError ? { is_error: true } : {}),
});

const main = [
  { type: "summary", summary: "Fixing the parser", leafUuid: "x" },
  { type: "file-history-snapshot", messageId: "m", snapshot: {} },
  user("u1", null, "fix it ✨"),
  assistant("a1", "u1", "msg_1", { type: "thinking", thinking: "hmm", signature: "REDACTED" }),
  assistant("a2", "a1", "msg_1", { type: "text", text: "Looking." }, usage(5)),
  assistant("a3", "a2", "msg_1", { type: "tool_use", id: "toolu_1", name: "Read", input: { path: "a.ts" } }, usage(7)),
  { ...base, type: "progress", uuid: "p1", parentUuid: "a3", data: { type: "hook_progress" } },
  user("r1", "a3", [toolResult("toolu_1", "line 1")]),
  assistant("a4", "a3", "msg_1", { type: "tool_use", id: "toolu_2", name: "Bash", input: { cmd: "ls" } }, usage(9)),
  user("r2", "a4", [toolResult("toolu_2", [{ type: "text", text: "denied" }], true), { type: "text", text: "stop" }]),
  {
    ...base,
    type: "system",
    subtype: "compact_boundary",
    uuid: "b1",
    parentUuid: null,
    compactMetadata: { trigger: "manual", preTokens: 4242 },
  },
  user("sum", "b1", "This session is being continued… summary", {
    isCompactSummary: true,
    isVisibleInTranscriptOnly: true,
  }),
  assistant("a5", "sum", "msg_2", { type: "text", text: "Continuing." }, usage(3)),
  { ...base, type: "queue-operation", operation: "enqueue" },
  user("u2", "a5", "thanks"),
];
const jsonl = (lines: object[]) => lines.map((l) => JSON.stringify(l)).join("\n");

describe("Claude Code import", () => {
  const sessions = parseTranscript(jsonl(main), { fileName: "S1.jsonl" });
  const [s] = sessions;

  it("detects the format and reads one session with the title and model", () => {
    expect(sessions).toHaveLength(1);
    expect(s).toMatchObject({
      externalId: "S1",
      format: "claude-code",
      title: "Fixing the parser",
      model: "claude-opus-4-6",
    });
  });

  it("merges assistant lines sharing message.id, with reasoning, calls and the last line's usage", () => {
    const first = s?.items[1];
    expect(first?.kind).toBe("message");
    if (first?.kind !== "message") return;
    expect(first.message).toMatchObject({
      id: "msg_1",
      content: [{ type: "text", text: "Looking." }],
      toolCalls: [
        { id: "toolu_1", name: "Read", arguments: '{"path":"a.ts"}' },
        { id: "toolu_2", name: "Bash", arguments: '{"cmd":"ls"}' },
      ],
      reasoning: [{ type: "thinking", thinking: "hmm", signature: "REDACTED" }],
    });
    expect(first.usage).toEqual({
      promptTokens: 1110,
      completionTokens: 9,
      cacheReadTokens: 1000,
      cacheWriteTokens: 100,
    });
  });

  it("turns tool_result blocks into tool messages and the line's text into a user message after them", () => {
    const ms = messagesOf(s);
    expect(ms.map((m) => [m.id, m.role])).toEqual([
      ["u1", "user"],
      ["msg_1", "assistant"],
      ["r1", "tool"],
      ["r2", "tool"],
      ["r2:text", "user"],
      ["msg_2", "assistant"],
      ["u2", "user"],
    ]);
    expect(ms[3]).toMatchObject({ toolCallId: "toolu_2", isError: true, content: [{ type: "text", text: "denied" }] });
  });

  it("turns the compact boundary and its summary into one compaction item", () => {
    const kinds = s?.items.map((i) => i.kind);
    expect(kinds).toEqual(["message", "message", "message", "message", "message", "compaction", "message", "message"]);
    expect(s?.items[5]).toMatchObject({
      kind: "compaction",
      trigger: "manual",
      preTokens: 4242,
      summary: { id: "sum", role: "user" },
    });
  });

  it("splits inline sidechain threads into their own sessions", () => {
    const side = { ...base, isSidechain: true };
    const lines = [
      user("u1", null, "go"),
      { ...user("s1", null, "sub task A"), ...side },
      { ...user("t1", null, "sub task B"), ...side },
      { ...assistant("s2", "s1", "msg_a", { type: "text", text: "A done" }), ...side },
      { ...assistant("t2", "t1", "msg_b", { type: "text", text: "B done" }), ...side },
      assistant("a1", "u1", "msg_m", { type: "text", text: "all done" }),
    ];
    const out = parseTranscript(jsonl(lines), { format: "claude-code" });
    expect(out.map((x) => [x.externalId, x.parentExternalId, messagesOf(x).map((m) => m.id)])).toEqual([
      ["S1", undefined, ["u1", "msg_m"]],
      ["S1:sidechain:s1", "S1", ["s1", "msg_a"]],
      ["S1:sidechain:t1", "S1", ["t1", "msg_b"]],
    ]);
  });

  it("takes a negative or fractional token count as none reported, keeping the rest of the usage", () => {
    const bad = { ...usage(5), input_tokens: -10, output_tokens: 2.5 };
    const lines = [user("u1", null, "hi"), assistant("a1", "u1", "msg_1", { type: "text", text: "Hello." }, bad)];
    const [out] = parseTranscript(jsonl(lines), { format: "claude-code" });
    const reply = out?.items.find((i) => i.kind === "message" && i.message.role === "assistant");
    expect(reply?.kind === "message" ? reply.usage : undefined).toEqual({
      promptTokens: 1100,
      cacheReadTokens: 1000,
      cacheWriteTokens: 100,
    });
  });

  it("reads a subagents/ file as the agent's session, child of the main session", () => {
    const agent = { isSidechain: true, agentId: "a77" };
    const lines = [
      { ...user("x1", "elsewhere", "explore"), ...agent },
      { ...assistant("x2", "x1", "msg_x", { type: "text", text: "found" }), ...agent },
    ];
    const out = parseTranscript(jsonl(lines), { fileName: "S1/subagents/agent-a77.jsonl" });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ externalId: "a77", parentExternalId: "S1" });
  });

  it("names an agent file's session after the file when its lines carry no agentId", () => {
    const lines = [
      { ...user("y1", null, "explore"), isSidechain: true },
      { ...assistant("y2", "y1", "msg_y", { type: "text", text: "found" }), isSidechain: true },
    ];
    const out = parseTranscript(jsonl(lines), { fileName: "agent-b9.jsonl" });
    expect(out.map((x) => [x.externalId, x.parentExternalId])).toEqual([["b9", "S1"]]);
  });

  it("reports a malformed line with its number", () => {
    const text = `${jsonl(main.slice(0, 3))}\n{"type":"user",`;
    expect(() => parseTranscript(text, { format: "claude-code", fileName: "S1.jsonl" })).toThrow(ValidationError);
    expect(() => parseTranscript(text, { format: "claude-code", fileName: "S1.jsonl" })).toThrow(/S1\.jsonl:4/);
  });
});
