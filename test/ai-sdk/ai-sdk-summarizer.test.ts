/**
 * AiSdkSummarizer: a summarizer on the app's own AI SDK model. With `conversation`, the call the model
 * receives is the agent's last call unchanged (its prompt, Anthropic breakpoints, tools, tool choice and
 * provider options, compared with what the agent's own generateText sent the same mock model), then the
 * instruction as the last user message; without a conversation, the plain request. Usage (cache reads
 * and writes too), the answer's checks and the failures' classes; and compaction end to end through a
 * runtime, the summary landing in the view the agent loads.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AiSdkSummarizer, type AiSdkSummarizerOptions, type Conversation, openConversation } from "@palimpsest/ai-sdk";
import {
  buildSummaryPrompt,
  type Message,
  SUMMARY_SYSTEM_PROMPT,
  SummarizerError,
  type SummaryRequest,
} from "@palimpsest/core";
import { compactRange, openPalimpsest } from "@palimpsest/runtime";
import { APICallError, generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectSummarizerError } from "../../packages/summarizers/test/support/expect-failure.ts";
import { SAMPLE_REQUEST, sectionedAnswer } from "../../packages/summarizers/test/support/sample.ts";
import { call, type ModelResult, result, text } from "./scripted-model.ts";
import { weatherTool } from "./tools.ts";

/** The options of one call the mock model received. */
type ModelCall = MockLanguageModelV4["doGenerateCalls"][number];

const INSTRUCTION_MARK = "[SUMMARY REQUEST]";

/** Was `call` a summary request (the instruction last, or the plain summary prompt)? */
function isSummaryCall(call: ModelCall): boolean {
  const system = call.prompt[0];
  if (system?.role === "system" && system.content === SUMMARY_SYSTEM_PROMPT) return true;
  return JSON.stringify(call.prompt.at(-1)?.content ?? "").includes(INSTRUCTION_MARK);
}

/** A summary answer with the usage a provider reports when it read most of the prompt from its cache. */
function summaryResult(answer = sectionedAnswer("- Checked the weather in Paris and Oslo.")): ModelResult {
  return {
    content: [{ type: "text", text: answer }],
    finishReason: { unified: "stop", raw: "end_turn" },
    usage: {
      inputTokens: { total: 5_000, noCache: 100, cacheRead: 4_800, cacheWrite: 100 },
      outputTokens: { total: 60, text: 60, reasoning: 0 },
    },
    warnings: [],
  };
}

/**
 * The app's model: as the agent, it calls `weather` for a new question and answers once the result is
 * in; asked for a summary, it answers `summary`.
 */
function appModel(summary: () => ModelResult = () => summaryResult()): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      if (isSummaryCall(options)) return summary();
      const last = options.prompt.at(-1);
      if (last?.role === "tool") return result([text("Sunny there.")]);
      return result([call(`call-${options.prompt.length}`, "weather", { city: "Paris" })]);
    },
  });
}

/** A mock model answering every call with `answer` (or throwing what `fail` returns), its calls recorded. */
function answering(answer: ModelResult | (() => never)): MockLanguageModelV4 {
  return new MockLanguageModelV4({ doGenerate: async () => (typeof answer === "function" ? answer() : answer) });
}

/** A view for direct summarize calls: a system prompt, two exchanges, the user's latest question. */
const VIEW: Message[] = (
  [
    ["sys", "system", "You are a careful agent."],
    ["u1", "user", "Check the build."],
    ["a1", "assistant", "The build passes."],
    ["u2", "user", "Now the tests."],
    ["a2", "assistant", "Two tests fail in auth."],
    ["u3", "user", "Fix them."],
  ] as const
).map(([id, role, text]) => ({ id, role, content: [{ type: "text", text }] }));

/** A summary request of VIEW's two exchanges, with the conversation. */
function spanRequest(): SummaryRequest {
  return {
    messages: VIEW.slice(1, 5),
    maxOutputTokens: 500,
    conversation: { messages: VIEW, start: 1, end: 5 },
  };
}

describe("AiSdkSummarizer", () => {
  let cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  async function open(options: Parameters<typeof openConversation>[0]): Promise<Conversation> {
    const conversation = await openConversation(options);
    cleanups.push(() => conversation.close());
    return conversation;
  }

  /** One turn of the agent, as the docs' route handler runs it: load, a tool loop with prepareStep, save. */
  async function agentTurn(
    conversation: Conversation,
    model: MockLanguageModelV4,
    question: string,
    extra: { tools: Parameters<typeof generateText>[0]["tools"]; providerOptions?: object },
  ): Promise<void> {
    await conversation.save([{ role: "user", content: question }]);
    const answer = await generateText({
      model,
      ...extra,
      ...(await conversation.load()),
      stopWhen: stepCountIs(5),
      prepareStep: conversation.prepareStep,
    } as Parameters<typeof generateText>[0]);
    await conversation.saveResponse(answer);
  }

  it("sends the agent's last call unchanged, breakpoints, tools, tool choice and provider options included, the instruction last", async () => {
    const model = appModel();
    const tools = { weather: weatherTool(150) };
    const providerOptions = { openai: { promptCacheKey: "session-1" } };
    const summarizer = new AiSdkSummarizer({ model, conversation: { anthropicCache: true, tools, providerOptions } });
    const conversation = await open({
      url: ":memory:",
      anthropicCache: true,
      contextWindow: 6_000,
      compaction: { policy: "summary", summarizer, auto: false },
    });
    await conversation.session.append({ id: "sys", role: "system", content: "You are a careful agent." });
    for (const city of ["Paris", "Oslo", "Rome", "Lima"])
      await agentTurn(conversation, model, `The weather in ${city}?`, { tools, providerOptions });
    await compactRange(conversation.session, {
      fromId: conversation.session.view().messages[1]?.id ?? "",
      toId: conversation.session.view().messages[4]?.id ?? "",
      summary: "Asked about Paris: sunny.",
    });
    for (const city of ["Bern", "Kyiv", "Oslo"])
      await agentTurn(conversation, model, `And in ${city}?`, { tools, providerOptions });

    const agentCalls = model.doGenerateCalls.length;
    const agentLast = model.doGenerateCalls.at(-1) as ModelCall;
    const outcome = await conversation.compact({ force: true });
    expect(outcome).toMatchObject({ status: "compacted" });

    const summaryCalls = model.doGenerateCalls.slice(agentCalls);
    expect(summaryCalls).toHaveLength(1);
    const sent = summaryCalls[0] as ModelCall;
    // The agent's last call was a tool loop's second step: the prompt prepareStep handed it, breakpoints moved.
    expect(agentLast.prompt.at(-1)?.role).toBe("tool");
    expect(sent.prompt.slice(0, -1)).toStrictEqual(agentLast.prompt);
    expect(JSON.stringify(agentLast.prompt)).toContain("cacheControl"); // the breakpoints are compared too
    expect(sent.tools).toStrictEqual(agentLast.tools);
    expect(sent.toolChoice).toStrictEqual(agentLast.toolChoice);
    expect(sent.providerOptions).toStrictEqual(agentLast.providerOptions);
    expect(sent.providerOptions).toStrictEqual(providerOptions);

    const instruction = sent.prompt.at(-1);
    expect(instruction?.role).toBe("user");
    expect(instruction?.content).toEqual([{ type: "text", text: expect.stringMatching(/^\[SUMMARY REQUEST\]/) }]);
    expect(sent.maxOutputTokens).toBeGreaterThan(0);

    const view = conversation.session.view();
    const summary = view.messages.find((m) => m.id === view.lastSummaryId);
    expect(JSON.stringify(summary?.content)).toContain("Checked the weather in Paris and Oslo.");
  });

  it("runs none of the agent's tools: a call the model makes instead of the summary is refused (malformed)", async () => {
    let runs = 0;
    const weather = tool({
      description: "the weather in a city",
      inputSchema: z.object({ city: z.string() }),
      execute: async () => {
        runs++;
        return "sunny";
      },
    });
    const model = answering(result([call("c1", "weather", { city: "Paris" })]));
    const summarizer = new AiSdkSummarizer({ model, conversation: { tools: { weather } } });
    const error = await expectSummarizerError(summarizer.summarize(spanRequest()));
    expect(error.details.reason).toBe("malformed");
    expect(error.message).toContain("`weather`");
    expect(runs).toBe(0);
    expect(model.doGenerateCalls).toHaveLength(1); // one step: no tool result sent back
    expect(model.doGenerateCalls[0]?.tools?.map((t) => t.name)).toEqual(["weather"]);
  });

  it("sends what a `request` builder returns, unchanged, the instruction after it", async () => {
    const model = answering(summaryResult());
    const messages = [
      { role: "user" as const, content: "Check the build." },
      { role: "assistant" as const, content: "The build passes." },
    ];
    const built: unknown[] = [];
    const summarizer = new AiSdkSummarizer({
      model,
      conversation: {
        request: (conversation) => {
          built.push(conversation);
          return { instructions: "Own system prompt.", messages, toolChoice: "none" };
        },
      },
    });
    await summarizer.summarize(spanRequest());
    expect(built).toStrictEqual([{ messages: VIEW }]);
    const sent = model.doGenerateCalls[0] as ModelCall;
    expect(sent.prompt[0]).toStrictEqual({ role: "system", content: "Own system prompt." });
    expect(sent.prompt.slice(1, 3).map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(sent.prompt).toHaveLength(4);
    expect(sent.toolChoice).toStrictEqual({ type: "none" });
    expect(JSON.stringify(sent.prompt[3]?.content)).toContain(INSTRUCTION_MARK);
  });

  it("reports the input, cached input, cache write and output tokens", async () => {
    const heard: unknown[] = [];
    const summarizer = new AiSdkSummarizer({
      model: answering(summaryResult()),
      conversation: {},
      onUsage: (usage) => heard.push(usage),
    });
    const summary = await summarizer.summarize(spanRequest());
    const usage = { inputTokens: 5_000, cachedInputTokens: 4_800, cacheWriteTokens: 100, outputTokens: 60 };
    expect(summary).toStrictEqual({ text: sectionedAnswer("- Checked the weather in Paris and Oslo."), ...usage });
    expect(heard).toStrictEqual([usage]);
  });

  it("sends the plain request without a conversation, or without the option", async () => {
    for (const options of [{ conversation: {} }, {}] satisfies Partial<AiSdkSummarizerOptions>[]) {
      const model = answering(summaryResult());
      const summarizer = new AiSdkSummarizer({ model, ...options });
      expect(summarizer.readsConversation).toBe("conversation" in options);
      const request = "conversation" in options ? { ...SAMPLE_REQUEST } : spanRequest();
      await summarizer.summarize(request);
      const sent = model.doGenerateCalls[0] as ModelCall;
      expect(sent.prompt).toEqual([
        { role: "system", content: SUMMARY_SYSTEM_PROMPT },
        { role: "user", content: [{ type: "text", text: buildSummaryPrompt(request) }] },
      ]);
      expect(sent.tools).toBeUndefined();
      expect(sent.maxOutputTokens).toBe(request.maxOutputTokens);
    }
  });

  it("checks the answer as the other summarizers do: redacted, never empty, every section", async () => {
    const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD";
    const redacted = await new AiSdkSummarizer({
      model: answering(summaryResult(sectionedAnswer(`- key ${secret}`))),
    }).summarize(spanRequest());
    expect(redacted.text).not.toContain(secret);
    const empty = new AiSdkSummarizer({ model: answering(summaryResult("  ")) });
    expect((await expectSummarizerError(empty.summarize(spanRequest()))).details.reason).toBe("empty");
    const partial = new AiSdkSummarizer({ model: answering(summaryResult(sectionedAnswer("x", ["Current State"]))) });
    expect((await expectSummarizerError(partial.summarize(spanRequest()))).details.reason).toBe("malformed");
  });

  it("maps the finish reasons and the AI SDK's errors to the SummarizerError classes", async () => {
    const finished = (unified: "length" | "content-filter"): ModelResult => ({
      ...summaryResult(),
      finishReason: { unified, raw: undefined },
    });
    const failure = (statusCode: number, responseHeaders?: Record<string, string>) => () => {
      throw new APICallError({
        message: `status ${statusCode}`,
        url: "https://provider.test/v1",
        requestBodyValues: {},
        statusCode,
        ...(responseHeaders === undefined ? {} : { responseHeaders }),
      });
    };
    const reasonOf = async (answer: ModelResult | (() => never), options: Partial<AiSdkSummarizerOptions> = {}) => {
      const summarizer = new AiSdkSummarizer({ model: answering(answer), maxRetries: 0, ...options });
      return (await expectSummarizerError(summarizer.summarize(spanRequest()))).details;
    };
    expect((await reasonOf(finished("length"))).reason).toBe("truncated");
    expect((await reasonOf(finished("content-filter"))).reason).toBe("refused");
    expect((await reasonOf(failure(401))).reason).toBe("auth");
    expect((await reasonOf(failure(403))).reason).toBe("auth");
    expect((await reasonOf(failure(408))).reason).toBe("timeout");
    expect(await reasonOf(failure(429, { "retry-after": "7" }))).toMatchObject({
      reason: "rate-limited",
      retryAfterMs: 7_000,
    });
    expect((await reasonOf(failure(500))).reason).toBe("other");
    // Retries that run out: the AI SDK's RetryError, classified by its last attempt.
    expect(await reasonOf(failure(429, { "retry-after-ms": "1" }), { maxRetries: 1 })).toMatchObject({
      reason: "rate-limited",
      retryAfterMs: 1,
    });
  });

  it("maps an abort to timeout", async () => {
    const controller = new AbortController();
    const model = new MockLanguageModelV4({
      doGenerate: async ({ abortSignal }) =>
        new Promise<never>((_, reject) => {
          abortSignal?.addEventListener("abort", () => reject(abortSignal.reason));
          controller.abort();
        }),
    });
    const summarizer = new AiSdkSummarizer({ model, maxRetries: 0 });
    const error = await expectSummarizerError(summarizer.summarize(spanRequest(), { signal: controller.signal }));
    expect(error).toBeInstanceOf(SummarizerError);
    expect(error.details.reason).toBe("timeout");
  });

  it("compacts a conversation end to end through a runtime on a SQLite file: the summary is what the agent loads next", async () => {
    const dir = mkdtempSync(join(tmpdir(), "palimpsest-ai-sdk-summarizer-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const runtime = await openPalimpsest({ url: join(dir, "store.db") });
    cleanups.push(() => runtime.close());
    const model = appModel();
    const tools = { weather: weatherTool(300) };
    const summarizer = new AiSdkSummarizer({ model, conversation: { tools } });
    const conversation = await open({
      runtime,
      contextWindow: 8_000,
      compaction: { policy: "summary", summarizer },
    });
    const cities = ["Paris", "Oslo", "Rome", "Lima", "Bern", "Kyiv", "Faro", "Graz"];
    for (const city of cities) {
      await agentTurn(conversation, model, `The weather in ${city}?`, { tools });
      await conversation.compact();
    }
    const summaries = model.doGenerateCalls.filter(isSummaryCall);
    expect(summaries.length).toBeGreaterThan(0);
    expect(JSON.stringify(summaries.at(-1)?.prompt.at(-1)?.content)).toContain(INSTRUCTION_MARK);

    const reopened = await openPalimpsest({ url: join(dir, "store.db") });
    cleanups.push(() => reopened.close());
    const session = await reopened.resume(conversation.sessionId);
    const view = session.view();
    const summary = view.messages.find((m) => m.id === view.lastSummaryId);
    expect(JSON.stringify(summary?.content)).toContain("Checked the weather in Paris and Oslo.");
    const runs = (await session.history()).filter((c) => c.mode === "summary");
    expect(runs.length).toBe(summaries.length);
    const loaded = await conversation.load();
    expect(JSON.stringify(loaded.messages)).toContain("Checked the weather in Paris and Oslo.");
  });
});
