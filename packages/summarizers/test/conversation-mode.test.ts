/**
 * The summarizers' conversation mode against a local server speaking the provider's API: the agent's own
 * request as the builder makes it, then the instruction; the plain request without a conversation; a
 * tool call refused.
 */
import {
  buildConversationInstruction,
  type Message,
  SUMMARY_SYSTEM_PROMPT,
  type SummaryConversation,
  type SummaryRequest,
} from "@palimpsest/core";
import {
  type AnthropicConversationRequest,
  AnthropicSummarizer,
  type ConversationInput,
  OpenAICompatibleSummarizer,
} from "@palimpsest/summarizers";
import { afterEach, describe, expect, it } from "vitest";
import { expectSummarizerError } from "./support/expect-failure.ts";
import { type CannedResponse, type FakeProvider, startFakeProvider } from "./support/fake-provider.ts";
import { anthropicMessage, chatCompletion, sectionedAnswer } from "./support/sample.ts";

const text = (t: string) => [{ type: "text" as const, text: t }];
const EPHEMERAL = { type: "ephemeral" } as const;

/** The view: a system prompt, a finished exchange with a tool call, then the turn in progress. */
const VIEW: Message[] = [
  { id: "s", role: "system", content: text("You are a careful coding agent.") },
  { id: "u1", role: "user", content: text("Fix the build. The key is sk-proj-Zq9LmNoPqRsTuVwXyZ012345") },
  {
    id: "a1",
    role: "assistant",
    content: text("Running the tests."),
    toolCalls: [{ id: "c1", name: "bash", arguments: '{"command":"npm test"}' }],
  },
  { id: "t1", role: "tool", toolCallId: "c1", content: text("FAIL src/a.test.ts") },
  { id: "a2", role: "assistant", content: text("Fixed src/a.ts.") },
  { id: "u2", role: "user", content: text("Now the docs.") },
];
const TOOLS = [{ name: "bash", description: "Runs a command", input_schema: { type: "object", properties: {} } }];

/**
 * An agent's request builder, as an agent writes one: every message's blocks, breakpoints on the system
 * prompt and the last two messages, its tools. Counts its calls.
 */
function agentBuilder() {
  const calls: ConversationInput[] = [];
  const request = (c: ConversationInput): AnthropicConversationRequest => {
    calls.push(c);
    const [system, ...rest] = c.messages;
    const messages = rest.map((m) => ({
      role: m.role === "assistant" ? ("assistant" as const) : ("user" as const),
      content: [
        ...(m.role === "tool"
          ? [
              {
                type: "tool_result",
                tool_use_id: m.toolCallId,
                content: m.content[0]?.type === "text" ? m.content[0].text : "",
              },
            ]
          : m.content.map((p) => ({ type: "text", text: p.type === "text" ? p.text : "" }))),
        ...(m.toolCalls ?? []).map((t) => ({
          type: "tool_use",
          id: t.id,
          name: t.name,
          input: JSON.parse(t.arguments),
        })),
      ] as Record<string, unknown>[],
    }));
    for (const m of messages.slice(-2)) (m.content.at(-1) as Record<string, unknown>).cache_control = EPHEMERAL;
    const systemText = system?.content[0]?.type === "text" ? system.content[0].text : "";
    return {
      system: [{ type: "text", text: systemText, cache_control: EPHEMERAL }],
      tools: TOOLS,
      tool_choice: { type: "auto" },
      messages,
    };
  };
  return { calls, request };
}

/** The instruction the summarizer appends for a request that has a conversation. */
function instructionFor(request: SummaryRequest): string {
  const { conversation } = request;
  if (conversation === undefined) throw new Error("the request has no conversation");
  return buildConversationInstruction({ ...request, conversation });
}

/** The runtime's request for `VIEW[start..end)`: the plain fields, and the conversation. */
function spanRequest(start: number, end: number, lastSummaryId?: string): SummaryRequest {
  const conversation: SummaryConversation = { messages: VIEW, start, end };
  if (lastSummaryId !== undefined) conversation.lastSummaryId = lastSummaryId;
  return { messages: VIEW.slice(start, end), maxOutputTokens: 600, conversation };
}

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

async function anthropic(responses: CannedResponse[], builder = agentBuilder()) {
  provider = await startFakeProvider(responses);
  const summarizer = new AnthropicSummarizer({
    model: "claude-agent-model",
    baseURL: provider.baseURL,
    apiKey: "test-key",
    maxRetries: 0,
    conversation: { request: builder.request },
  });
  return { summarizer, builder };
}

interface SentBody extends AnthropicConversationRequest {
  model: string;
  max_tokens: number;
}

describe("AnthropicSummarizer with the conversation option", () => {
  it("reads the conversation; without the option it does not", () => {
    expect(new AnthropicSummarizer({ model: "m", conversation: agentBuilder() }).readsConversation).toBe(true);
    expect(new AnthropicSummarizer({ model: "m" }).readsConversation).toBe(false);
  });

  it("sends the builder's request as it is, the instruction appended to its last user message", async () => {
    const { summarizer, builder } = await anthropic([{ body: anthropicMessage(sectionedAnswer("docs next")) }]);
    const request = spanRequest(1, 5, "sum-1");
    const result = await summarizer.summarize(request);
    expect(result.text).toBe(sectionedAnswer("docs next"));
    expect(builder.calls).toEqual([{ messages: VIEW, lastSummaryId: "sum-1" }]);

    const built = agentBuilder().request({ messages: VIEW, lastSummaryId: "sum-1" });
    const [received] = provider?.received ?? [];
    const body = received?.json as SentBody;
    expect(body.model).toBe("claude-agent-model");
    expect(body.max_tokens).toBe(600);
    expect(body.system).toStrictEqual(built.system);
    expect(body.tools).toStrictEqual(built.tools);
    expect(body.tool_choice).toStrictEqual(built.tool_choice);
    expect(body.messages).toHaveLength(built.messages.length);
    expect(body.messages.slice(0, -1)).toStrictEqual(built.messages.slice(0, -1));
    const last = built.messages.at(-1);
    const instruction = instructionFor(request);
    expect(body.messages.at(-1)).toStrictEqual({
      role: "user",
      content: [...((last?.content ?? []) as object[]), { type: "text", text: instruction }],
    });
    // Byte for byte: the earlier messages, breakpoints included, are in the body as the builder wrote them.
    const prefix = JSON.stringify(built.messages.slice(0, -1)).slice(0, -1);
    expect(received?.raw).toContain(`"messages":${prefix},`);
    expect(received?.raw).toContain(JSON.stringify(built.system));
    expect(received?.raw).toContain(JSON.stringify(built.tools));
    // The conversation is the agent's, unredacted; the span is named by its bounds.
    expect(received?.raw).toContain("sk-proj-Zq9LmNoPqRsTuVwXyZ012345");
    expect(instruction).toContain('starts at the user message that begins "Fix the build. The key is');
    expect(instruction).toContain('ends just before the user message that begins "Now the docs."');
    expect(instruction).toContain("- Superseded 4 messages: u1 … a2");
  });

  it("adds the instruction as a user message of its own after an assistant message", async () => {
    const { summarizer } = await anthropic([{ body: anthropicMessage(sectionedAnswer("done")) }]);
    const view = VIEW.slice(0, 5); // ends on the assistant's answer
    const request: SummaryRequest = {
      messages: view.slice(1, 4),
      maxOutputTokens: 600,
      conversation: { messages: view, start: 1, end: 4 },
    };
    await summarizer.summarize(request);
    const built = agentBuilder().request({ messages: view });
    const body = provider?.received[0]?.json as SentBody;
    expect(body.messages.slice(0, -1)).toStrictEqual(built.messages);
    expect(body.messages.at(-1)).toStrictEqual({
      role: "user",
      content: [{ type: "text", text: instructionFor(request) }],
    });
  });

  it("sends the plain request when the runtime gives no conversation, without calling the builder", async () => {
    const { summarizer, builder } = await anthropic([{ body: anthropicMessage(sectionedAnswer("plain")) }]);
    const { conversation: _none, ...plain } = spanRequest(1, 5);
    expect((await summarizer.summarize(plain)).text).toBe(sectionedAnswer("plain"));
    expect(builder.calls).toEqual([]);
    const body = provider?.received[0]?.json as { system: string; messages: { content: string }[]; tools?: unknown };
    expect(body.system).toBe(SUMMARY_SYSTEM_PROMPT);
    expect(body.tools).toBeUndefined();
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0]?.content).toContain("<transcript>");
    expect(provider?.received[0]?.raw).not.toContain("sk-proj-Zq9LmNoPqRsTuVwXyZ012345");
  });

  it("refuses an answer that calls a tool (malformed)", async () => {
    const toolUse = {
      ...anthropicMessage(""),
      content: [
        { type: "text", text: sectionedAnswer("let me check first") },
        { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
      ],
      stop_reason: "tool_use",
    };
    const { summarizer } = await anthropic([{ body: toolUse }]);
    const failure = await expectSummarizerError(summarizer.summarize(spanRequest(1, 5)));
    expect(failure.details.reason).toBe("malformed");
    expect(failure.message).toContain("`bash`");
  });

  it("refuses an answer with no text (empty), as in the plain mode", async () => {
    const { summarizer } = await anthropic([{ body: { ...anthropicMessage(""), content: [] } }]);
    expect((await expectSummarizerError(summarizer.summarize(spanRequest(1, 5)))).details.reason).toBe("empty");
  });
});

describe("OpenAICompatibleSummarizer with the conversation option", () => {
  const openAIBuilder = (c: ConversationInput) => ({
    messages: c.messages.map((m) => ({
      role: m.role,
      content: m.content[0]?.type === "text" ? m.content[0].text : "",
    })),
    tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }],
  });

  async function openai(responses: CannedResponse[]) {
    provider = await startFakeProvider(responses, "/v1");
    return new OpenAICompatibleSummarizer({
      model: "gpt-agent-model",
      baseURL: provider.baseURL,
      apiKey: "k",
      maxRetries: 0,
      conversation: { request: openAIBuilder },
    });
  }

  it("sends the builder's messages and tools, then the instruction as one more user message", async () => {
    const summarizer = await openai([{ body: chatCompletion(sectionedAnswer("docs next")) }]);
    expect(summarizer.readsConversation).toBe(true);
    const request = spanRequest(1, 5);
    expect((await summarizer.summarize(request)).text).toBe(sectionedAnswer("docs next"));
    const built = openAIBuilder({ messages: VIEW });
    const body = provider?.received[0]?.json as { model: string; messages: unknown[]; tools: unknown };
    expect(body.model).toBe("gpt-agent-model");
    expect(body.tools).toStrictEqual(built.tools);
    expect(body.messages).toStrictEqual([...built.messages, { role: "user", content: instructionFor(request) }]);
  });

  it("sends the plain request when the runtime gives no conversation", async () => {
    const summarizer = await openai([{ body: chatCompletion(sectionedAnswer("plain")) }]);
    const { conversation: _none, ...plain } = spanRequest(1, 5);
    expect((await summarizer.summarize(plain)).text).toBe(sectionedAnswer("plain"));
    const body = provider?.received[0]?.json as { messages: { role: string; content: string }[]; tools?: unknown };
    expect(body.tools).toBeUndefined();
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(body.messages[0]?.content).toBe(SUMMARY_SYSTEM_PROMPT);
  });

  it("refuses an answer that calls a tool (malformed)", async () => {
    const completion = chatCompletion("");
    const call = { id: "call_1", type: "function", function: { name: "bash", arguments: "{}" } };
    const choice = { ...completion.choices[0], message: { role: "assistant", content: null, tool_calls: [call] } };
    const summarizer = await openai([
      { body: { ...completion, choices: [{ ...choice, finish_reason: "tool_calls" }] } },
    ]);
    const failure = await expectSummarizerError(summarizer.summarize(spanRequest(1, 5)));
    expect(failure.details.reason).toBe("malformed");
    expect(failure.message).toContain("`bash`");
  });
});
