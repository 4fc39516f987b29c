import { type ImportedSession, type Message, parseTranscript, ValidationError } from "@palimpsest/core";
import { AWKWARD_TEXTS } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";

const messagesOf = (s: ImportedSession | undefined): Message[] =>
  (s?.items ?? []).flatMap((i) => (i.kind === "message" ? [i.message] : []));
const chat = [
  { role: "system", content: "be brief" },
  {
    role: "user",
    content: [
      { type: "text", text: "look" },
      { type: "image_url", image_url: { url: "https://x/y.png" } },
    ],
  },
  {
    role: "assistant",
    content: null,
    reasoning_content: { opaque: true },
    tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: '{"dir":"."}' } }],
  },
  { role: "tool", tool_call_id: "call_1", content: "a.txt" },
  { role: "assistant", content: "done" },
];

describe("OpenAI chat import", () => {
  it("reads a JSON array with text, images, tool calls and results", () => {
    const [s] = parseTranscript(JSON.stringify(chat), { fileName: "dir/conv.json" });
    expect(s).toMatchObject({ externalId: "conv", format: "openai" });
    const ms = messagesOf(s);
    expect(ms.map((m) => m.id)).toEqual(["conv:0", "conv:1", "conv:2", "conv:3", "conv:4"]);
    expect(ms[1]?.content[1]).toEqual({ type: "image", url: "https://x/y.png" });
    expect(ms[2]).toMatchObject({
      toolCalls: [{ id: "call_1", name: "ls", arguments: '{"dir":"."}' }],
      reasoning: { opaque: true },
    });
    expect(ms[3]).toMatchObject({ role: "tool", toolCallId: "call_1", name: "ls" });
  });

  it("keeps the name of every role's message, the assistant's included", () => {
    const named = [
      { role: "user", name: "alice", content: "hi" },
      { role: "assistant", name: "planner", content: "on it" },
    ];
    const [s] = parseTranscript(JSON.stringify(named), { fileName: "named.json" });
    expect(messagesOf(s).map((m) => [m.role, m.name])).toEqual([
      ["user", "alice"],
      ["assistant", "planner"],
    ]);
  });

  it("reads JSONL and an object with messages the same way, deterministically", () => {
    const jsonl = chat.map((m) => JSON.stringify(m)).join("\n");
    const fromLines = parseTranscript(jsonl, { fileName: "conv.jsonl" });
    const fromObject = parseTranscript(JSON.stringify({ id: "conv", model: "gpt-x", messages: chat }));
    expect(messagesOf(fromLines[0])).toEqual(messagesOf(fromObject[0]));
    expect(fromObject[0]?.model).toBe("gpt-x");
    expect(parseTranscript(jsonl, { fileName: "conv.jsonl" })).toEqual(fromLines);
  });

  it("maps a legacy function_call and its function-role reply", () => {
    const legacy = [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, function_call: { name: "f", arguments: "{}" } },
      { role: "function", name: "f", content: "42" },
    ];
    const ms = messagesOf(parseTranscript(JSON.stringify(legacy), { format: "openai", fileName: "l.json" })[0]);
    expect(ms[1]?.toolCalls).toEqual([{ id: "l:1:function_call", name: "f", arguments: "{}" }]);
    expect(ms[2]).toMatchObject({ role: "tool", toolCallId: "l:1:function_call" });
  });

  it("reports a malformed JSONL line with its line number", () => {
    const text = `${JSON.stringify(chat[0])}\n\n{"role": "user", "content": oops}\n`;
    const error = (() => {
      try {
        parseTranscript(text, { format: "openai", fileName: "bad.jsonl" });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details.path).toBe("bad.jsonl:3");
    expect((error as ValidationError).message).toContain("line 3");
  });

  it("rejects an unknown role", () => {
    const text = JSON.stringify([{ role: "wizard", content: "x" }]);
    expect(() => parseTranscript(text, { fileName: "r.json" })).toThrow(ValidationError);
    expect(() => parseTranscript(text, { fileName: "r.json" })).toThrow(/r\.json\[0\]: unknown role "wizard"/);
  });

  it("keeps a result with no call as a user message", () => {
    const text = JSON.stringify([
      { role: "user", content: "q" },
      { role: "tool", tool_call_id: "nope", content: "r" },
    ]);
    const [s] = parseTranscript(text, { fileName: "o.json" });
    expect(messagesOf(s).map((m) => m.role)).toEqual(["user", "user"]);
    expect(s?.repairs.orphanResults).toBe(1);
  });

  it("preserves unusual Unicode byte for byte", () => {
    const text = JSON.stringify(AWKWARD_TEXTS.map((t) => ({ role: "user", content: t })));
    const ms = messagesOf(parseTranscript(text, { fileName: "u.json" })[0]);
    const texts = ms.map((m) => (m.content[0]?.type === "text" ? m.content[0].text : ""));
    expect(texts).toEqual(AWKWARD_TEXTS.filter((t) => t.length > 0));
    for (const [i, t] of texts.entries()) {
      expect(Buffer.from(t, "utf8").equals(Buffer.from(AWKWARD_TEXTS[i] ?? "", "utf8"))).toBe(true);
    }
  });

  it("preserves a 10 MB tool output and reports progress per line", () => {
    const big = `${"x".repeat(5_000_000)}${"é🚀".repeat(1_000_000)}\u0000end`;
    const lines = [chat[2], { role: "tool", tool_call_id: "call_1", content: big }].map((m) => JSON.stringify(m));
    const progress: number[] = [];
    const [s] = parseTranscript(lines.join("\n"), { fileName: "big.jsonl", onProgress: (done) => progress.push(done) });
    const tool = messagesOf(s)[1];
    expect(tool?.content).toEqual([{ type: "text", text: big }]);
    expect(progress).toEqual([1, 2]);
  });
});
