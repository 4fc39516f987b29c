/**
 * AiSdkSummarizer through the real `@ai-sdk/anthropic` provider, against a loopback server that speaks
 * Anthropic's Messages API: what reaches the wire. The provider's prompt cache serves a request whose
 * prefix (tools, system, messages up to a `cache_control` breakpoint) is byte for byte one it has seen, so
 * the summary request must be the agent's last request on the wire with the instruction added after it:
 * same tools, same system, same messages and breakpoints (the provider merges the instruction into the
 * last user message, after its blocks). The usage Anthropic reports (cache reads and writes) reaches the
 * summary's result and the compaction's stats.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { AiSdkSummarizer, openConversation } from "@palimpsest/ai-sdk";
import { generateText, stepCountIs } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { type CannedResponse, startFakeProvider } from "../../packages/summarizers/test/support/fake-provider.ts";
import { sectionedAnswer } from "../../packages/summarizers/test/support/sample.ts";
import { weatherTool } from "./tools.ts";

const MODEL = "claude-sonnet-4-5";

/** The agent's turns: one question each, a tool call and an answer. */
const CITIES = ["Paris", "Oslo", "Rome", "Lima", "Bern"];

/** An Anthropic Messages answer: `content` blocks, the stop reason, and the usage Anthropic reports. */
function answer(content: unknown[], stop: string, usage: Record<string, number> = {}): CannedResponse {
  return {
    body: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: MODEL,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 200, output_tokens: 20, ...usage },
    },
  };
}

/** The agent's tool call for `city`, then its answer once the result is in. */
function agentStep(city: string, n: number): CannedResponse[] {
  return [
    answer([{ type: "tool_use", id: `toolu_${n}`, name: "weather", input: { city } }], "tool_use"),
    answer([{ type: "text", text: `Sunny in ${city}.` }], "end_turn"),
  ];
}

/** A request body as Anthropic receives it. */
interface WireRequest {
  model: string;
  system?: unknown;
  tools?: unknown;
  tool_choice?: unknown;
  max_tokens: number;
  messages: { role: string; content: { type: string; text?: string; cache_control?: unknown }[] }[];
}

describe("AiSdkSummarizer on @ai-sdk/anthropic", () => {
  let cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  it("sends the agent's last request on the wire with the instruction after it, and reports Anthropic's cache usage", async () => {
    const summaryUsage = { input_tokens: 90, cache_read_input_tokens: 4_800, cache_creation_input_tokens: 110 };
    const provider = await startFakeProvider(
      [
        ...CITIES.flatMap((city, i) => agentStep(city, i)),
        answer([{ type: "text", text: sectionedAnswer("- Checked the weather in Paris and Oslo.") }], "end_turn", {
          ...summaryUsage,
          output_tokens: 60,
        }),
      ],
      "/v1",
    );
    cleanups.push(() => provider.close());
    const anthropic = createAnthropic({ apiKey: "test-key", baseURL: provider.baseURL });
    const model = anthropic(MODEL);
    const tools = { weather: weatherTool(150) };
    const usages: unknown[] = [];
    const summarizer = new AiSdkSummarizer({
      model,
      conversation: { anthropicCache: true, tools },
      onUsage: (usage) => usages.push(usage),
    });
    const conversation = await openConversation({
      url: ":memory:",
      anthropicCache: true,
      contextWindow: 6_000,
      compaction: { policy: "summary", summarizer, auto: false },
    });
    cleanups.push(() => conversation.close());
    await conversation.session.append({ id: "sys", role: "system", content: "You are a careful agent." });
    for (const city of CITIES) {
      await conversation.save([{ role: "user", content: `The weather in ${city}?` }]);
      const turn = await generateText({
        model,
        tools,
        ...(await conversation.load()),
        stopWhen: stepCountIs(5),
        prepareStep: conversation.prepareStep,
      });
      await conversation.saveResponse(turn);
    }
    expect(provider.received).toHaveLength(2 * CITIES.length);

    const outcome = await conversation.compact({ force: true });
    expect(outcome).toMatchObject({ status: "compacted" });
    expect(provider.received).toHaveLength(2 * CITIES.length + 1);
    const [agent, sent] = provider.received.slice(-2).map((r) => r.json as WireRequest);
    if (agent === undefined || sent === undefined) throw new Error("two requests expected");

    // The agent's last request was its tool loop's second step: it ends in the tool's result.
    expect(agent.messages.at(-1)?.content.map((b) => b.type)).toEqual(["tool_result"]);
    expect(JSON.stringify(agent)).toContain('"cache_control"');
    expect(sent.model).toBe(agent.model);
    expect(sent.tools).toStrictEqual(agent.tools);
    expect(sent.tool_choice).toStrictEqual(agent.tool_choice);
    expect(sent.system).toStrictEqual(agent.system);
    expect(sent.messages).toHaveLength(agent.messages.length);
    expect(sent.messages.slice(0, -1)).toStrictEqual(agent.messages.slice(0, -1));
    // Two user messages in a row are one on Anthropic's wire: the instruction follows the last one's blocks.
    const [agentLast, sentLast] = [agent.messages.at(-1), sent.messages.at(-1)];
    expect(sentLast?.role).toBe("user");
    expect(sentLast?.content.slice(0, -1)).toStrictEqual(agentLast?.content);
    expect(sentLast?.content.at(-1)).toMatchObject({
      type: "text",
      text: expect.stringMatching(/^\[SUMMARY REQUEST\]/),
    });
    expect(sent.max_tokens).toBeGreaterThan(0);

    // The AI SDK's input tokens are all of them, the cached ones included.
    const inputTokens =
      summaryUsage.input_tokens + summaryUsage.cache_read_input_tokens + summaryUsage.cache_creation_input_tokens;
    expect(usages).toStrictEqual([{ inputTokens, cachedInputTokens: 4_800, cacheWriteTokens: 110, outputTokens: 60 }]);
    // The compaction records them: the cache's reads and writes beside the input and output tokens.
    const stats =
      outcome.status === "compacted" && outcome.event.type === "messages.superseded" && outcome.event.data.stats;
    expect(stats).toMatchObject({
      auxTokensIn: inputTokens,
      auxTokensOut: 60,
      auxTokensCacheRead: 4_800,
      auxTokensCacheWrite: 110,
    });
    const view = conversation.session.view();
    const summary = view.messages.find((m) => m.id === view.lastSummaryId);
    expect(JSON.stringify(summary?.content)).toContain("Checked the weather in Paris and Oslo.");
  });
});
