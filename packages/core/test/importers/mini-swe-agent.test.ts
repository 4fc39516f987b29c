import { type ImportedSession, type Message, parseTranscript, ValidationError } from "@palimpsest/core";
import { detectFormat } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

const messagesOf = (s: ImportedSession | undefined): Message[] =>
  (s?.items ?? []).flatMap((i) => (i.kind === "message" ? [i.message] : []));

/** A reply of the 1.1 format: a bash tool call, with the provider's response (and its usage) kept in `extra`. */
function reply(callId: string, command: string, seconds: number, promptTokens: number) {
  return {
    role: "assistant",
    content: "",
    tool_calls: [{ id: callId, type: "function", function: { name: "bash", arguments: JSON.stringify({ command }) } }],
    extra: {
      actions: [{ command, tool_call_id: callId }],
      response: {
        id: `resp-${callId}`,
        usage: { prompt_tokens: promptTokens, completion_tokens: 12, prompt_tokens_details: { cached_tokens: 256 } },
      },
      cost: 0.0004,
      timestamp: seconds,
    },
  };
}

/** The observation of the 1.1 format: a tool message answering the call, its time in `extra`. */
function observation(callId: string, output: string, seconds: number) {
  return { role: "tool", tool_call_id: callId, content: output, extra: { returncode: 0, timestamp: seconds } };
}

/** A run of mini-swe-agent 1.1 on a SWE-bench instance, ended by its exit message. */
const RUN = {
  info: {
    exit_status: "Submitted",
    submission: "diff --git a/x.py b/x.py",
    config: { model: { model_name: "anthropic/claude-sonnet-4-5" } },
  },
  messages: [
    { role: "system", content: "You are a helpful assistant that can interact with a computer." },
    { role: "user", content: "<pr_description>Fix the parser</pr_description>" },
    reply("call_a", "ls src", 1_770_000_000, 1_800),
    observation("call_a", "parser.py\nlexer.py", 1_770_000_002.5),
    reply("call_b", "git diff", 1_770_000_010, 2_100),
    observation("call_b", "diff --git a/x.py b/x.py", 1_770_000_011),
    {
      role: "exit",
      content: "diff --git a/x.py b/x.py",
      extra: { exit_status: "Submitted", submission: "diff --git a/x.py b/x.py" },
    },
  ],
  trajectory_format: "mini-swe-agent-1.1",
  instance_id: "acme__parser-42",
};

describe("mini-swe-agent import", () => {
  const text = JSON.stringify(RUN, null, 2);
  const [session] = parseTranscript(text, { fileName: "runs/acme__parser-42/acme__parser-42.traj.json" });

  it("is recognized by its trajectory_format, with or without the file's name", () => {
    expect(detectFormat(text)).toBe("mini-swe-agent");
    expect(detectFormat(text, "x/acme__parser-42.traj.json")).toBe("mini-swe-agent");
  });

  it("reads the conversation without the exit message, named after the instance, with the model it ran", () => {
    expect(session).toMatchObject({
      externalId: "acme__parser-42",
      format: "mini-swe-agent",
      model: "anthropic/claude-sonnet-4-5",
    });
    expect(messagesOf(session).map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
    ]);
    expect(messagesOf(session)[3]).toMatchObject({ toolCallId: "call_a", content: [{ text: "parser.py\nlexer.py" }] });
  });

  it("keeps each message's time and each reply's usage", () => {
    const items = session?.items ?? [];
    expect(items.map((i) => i.occurredAt)).toEqual([
      undefined,
      undefined,
      "2026-02-02T02:40:00.000Z",
      "2026-02-02T02:40:02.500Z",
      "2026-02-02T02:40:10.000Z",
      "2026-02-02T02:40:11.000Z",
    ]);
    const usages = items.map((i) => (i.kind === "message" ? i.usage : undefined));
    expect(usages[2]).toEqual({ promptTokens: 1_800, completionTokens: 12, cacheReadTokens: 256 });
    expect(usages[4]).toMatchObject({ promptTokens: 2_100 });
    expect(usages.filter((u) => u !== undefined)).toHaveLength(2);
  });

  it("takes a negative or fractional token count as none reported, keeping the rest of the usage", () => {
    const bad = reply("call_a", "ls src", 1_770_000_000, -5);
    bad.extra.response.usage.completion_tokens = 3.5;
    const [imported] = parseTranscript(JSON.stringify({ ...RUN, messages: [RUN.messages[0], RUN.messages[1], bad] }), {
      fileName: "bad-usage.traj.json",
    });
    const usages = (imported?.items ?? []).map((i) => (i.kind === "message" ? i.usage : undefined));
    expect(usages[2]).toEqual({ cacheReadTokens: 256 });
  });

  it("reads the 1.0 format: actions in the text, times on the messages, no exit message", () => {
    const older = {
      info: { exit_status: "Submitted", submission: "", config: { model: { model_name: "gpt-4o" } } },
      messages: [
        { role: "system", content: "sys", timestamp: 1_770_000_000 },
        { role: "user", content: "task", timestamp: 1_770_000_001 },
        { role: "assistant", content: "```bash\nls\n```", timestamp: 1_770_000_005 },
        { role: "user", content: "<returncode>0</returncode>\n<output>a.py</output>", timestamp: 1_770_000_006 },
      ],
      trajectory_format: "mini-swe-agent-1",
    };
    const [s] = parseTranscript(JSON.stringify({ ...older, instance_id: "" }), { fileName: "last_mini_run.traj.json" });
    expect(s).toMatchObject({ externalId: "last_mini_run", format: "mini-swe-agent", model: "gpt-4o" });
    expect(messagesOf(s).map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(s?.items[2]?.occurredAt).toBe("2026-02-02T02:40:05.000Z");
  });

  it("refuses an exit message before the end, naming it", () => {
    const early = { ...RUN, messages: [RUN.messages[0], RUN.messages[6], RUN.messages[1]] };
    const parse = () => parseTranscript(JSON.stringify(early), { fileName: "bad.traj.json" });
    expect(parse).toThrow(ValidationError);
    expect(parse).toThrow(/bad\.traj\.json\.messages\[1\].*only the last message may be one/);
  });
});
