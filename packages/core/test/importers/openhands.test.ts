import { type ImportedSession, type Message, parseTranscript } from "@palimpsest/core";
import { describe, expect, it } from "vitest";

const messagesOf = (s: ImportedSession | undefined): Message[] =>
  (s?.items ?? []).flatMap((i) => (i.kind === "message" ? [i.message] : []));
const call = (id: string, name: string, args: object) => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});
const response = (id: string, content: string | null, calls: object[]) => ({
  id,
  model: "llama",
  choices: [{ message: { role: "assistant", content, tool_calls: calls } }],
  usage: { prompt_tokens: 100, completion_tokens: 20 },
});
const both = response("gen-1", "Two at once.", [
  call("t1", "execute_bash", { command: "ls" }),
  call("t2", "think", {}),
]);
const history = [
  { id: 0, source: "agent", action: "system", message: "sys", args: { content: "You are OpenHands." } },
  { id: 1, source: "user", action: "message", message: "Fix the bug.", args: { content: "Fix the bug." } },
  { id: 2, source: "user", action: "recall", message: "Retrieving…", args: {} },
  { id: 3, source: "environment", observation: "recall", content: "ctx", extras: {} },
  {
    id: 4,
    source: "agent",
    action: "run",
    tool_call_metadata: { tool_call_id: "t1", function_name: "execute_bash", model_response: both },
  },
  {
    id: 5,
    source: "agent",
    action: "think",
    tool_call_metadata: { tool_call_id: "t2", function_name: "think", model_response: both },
  },
  {
    id: 6,
    source: "agent",
    observation: "run",
    content: "a.c",
    tool_call_metadata: { tool_call_id: "t1", function_name: "execute_bash" },
  },
  {
    id: 7,
    source: "agent",
    observation: "think",
    content: "ok",
    tool_call_metadata: { tool_call_id: "t2", function_name: "think" },
  },
  { id: 8, source: "agent", observation: "error", content: "bad parameter" },
  {
    id: 9,
    source: "agent",
    action: "finish",
    tool_call_metadata: {
      tool_call_id: "t3",
      function_name: "finish",
      model_response: response("gen-2", null, [call("t3", "finish", {})]),
    },
  },
];
const instance = { instance_id: "org__repo-1", metadata: { llm_config: { model: "openai/llama" } }, history };

describe("OpenHands import", () => {
  const [s] = parseTranscript(JSON.stringify(instance), { fileName: "output.jsonl" });

  it("keeps system, user, one assistant per model response, and tool results; skips recall and bare errors", () => {
    expect(s).toMatchObject({ externalId: "org__repo-1", format: "openhands", model: "openai/llama" });
    const ms = messagesOf(s);
    expect(ms.map((m) => [m.id, m.role])).toEqual([
      ["org__repo-1:0", "system"],
      ["org__repo-1:1", "user"],
      ["org__repo-1:4", "assistant"],
      ["org__repo-1:6", "tool"],
      ["org__repo-1:7", "tool"],
      ["org__repo-1:9", "assistant"],
    ]);
    expect(ms[2]?.toolCalls?.map((c) => c.id)).toEqual(["t1", "t2"]);
    expect(ms[2]?.content).toEqual([{ type: "text", text: "Two at once." }]);
    expect(s?.items[2]).toMatchObject({ usage: { promptTokens: 100, completionTokens: 20 } });
  });

  it("leaves the trailing finish call in flight", () => {
    expect(s?.repairs.syntheticResults).toBe(0);
    expect(messagesOf(s).at(-1)?.toolCalls?.[0]?.name).toBe("finish");
  });
});

describe("OpenHands event times", () => {
  it("stamps each item with its event's timestamp (a time without a zone read as UTC), for the cache TTL", () => {
    const timed = [
      { id: 1, timestamp: "2025-04-30T16:32:54.708196", source: "user", action: "message", args: { content: "Go." } },
      {
        id: 2,
        timestamp: "2025-04-30T16:40:00+00:00",
        source: "agent",
        action: "message",
        args: { content: "Done." },
      },
    ];
    const [session] = parseTranscript(JSON.stringify({ instance_id: "t", history: timed }), {
      format: "openhands",
    });
    expect(session?.items.map((i) => i.occurredAt)).toEqual(["2025-04-30T16:32:54.708Z", "2025-04-30T16:40:00.000Z"]);
  });
});
