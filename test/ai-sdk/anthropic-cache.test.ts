/**
 * openConversation's `anthropicCache`: prompt-cache breakpoints the AI SDK way
 * (`providerOptions.anthropic.cacheControl`), on the prompt the model actually receives (the mock model's
 * recorded calls, through the AI SDK's own prompt conversion): the last instruction, the view's last
 * summary and the last two messages, four at most with a stored message's own counted; none without the
 * option; after a compaction in prepareStep too, and moved to each step's last messages in a tool loop.
 */
import { type Conversation, openConversation } from "@palimpsest/ai-sdk";
import { isPalimpsestError } from "@palimpsest/core";
import { compactRange, openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import { generateText, type ModelMessage, stepCountIs, streamText } from "ai";
import type { MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { expectValidRequests } from "./request-checks.ts";
import { call, type ModelResult, result, scriptedModel, streamingToolModel, text } from "./scripted-model.ts";
import { weatherTool } from "./tools.ts";

/** One message of a provider prompt, as the mock model records it. */
type PromptMessage = MockLanguageModelV4["doGenerateCalls"][number]["prompt"][number];

/** A breakpoint of a provider prompt: the message it is on (its own, or a part's) and its value. */
interface Mark {
  message: number;
  control: unknown;
}

function controlOf(options: unknown): unknown {
  const anthropic = (options as { anthropic?: { cacheControl?: unknown; cache_control?: unknown } } | undefined)
    ?.anthropic;
  return anthropic?.cacheControl ?? anthropic?.cache_control;
}

/**
 * The breakpoints `@ai-sdk/anthropic` would send for a prompt: every part's, and a message's own on its
 * last part when that part has none (its reading, packages/anthropic convert-to-anthropic-messages-prompt).
 */
function marks(prompt: readonly PromptMessage[]): Mark[] {
  return prompt.flatMap((m, message) => {
    const own = controlOf(m.providerOptions);
    if (typeof m.content === "string") return own === undefined ? [] : [{ message, control: own }];
    const parts = m.content.flatMap((p) => {
      const control = controlOf(p.providerOptions);
      return control === undefined ? [] : [{ message, control }];
    });
    const lastMarked = controlOf(m.content.at(-1)?.providerOptions) !== undefined;
    return own === undefined || lastMarked ? parts : [...parts, { message, control: own }];
  });
}

/** The index of the last message of `prompt` whose content holds `needle`. */
function lastHolding(prompt: readonly PromptMessage[], needle: string): number {
  return prompt.findLastIndex((m) => JSON.stringify(m.content).includes(needle));
}

const FIVE_MINUTES = { type: "ephemeral" };

describe("AI SDK conversations: anthropicCache breakpoints", () => {
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  async function open(options: Parameters<typeof openConversation>[0] = {}): Promise<Conversation> {
    const conversation = await openConversation({ url: ":memory:", ...options });
    cleanups.push(() => conversation.close());
    return conversation;
  }

  async function sharedRuntime(): Promise<Palimpsest> {
    const runtime = await openPalimpsest({ url: ":memory:" });
    cleanups.push(() => runtime.close());
    return runtime;
  }

  /**
   * A conversation whose view holds a system prompt, two summaries (the second compaction kept the first)
   * and two verbatim exchanges, then the user's new question, saved.
   */
  async function twiceCompacted(conversation: Conversation): Promise<void> {
    const turns = ["one", "two", "three", "four", "five", "six"];
    await conversation.session.append([
      { id: "sys", role: "system", content: "You are a careful agent." },
      ...turns.flatMap((t) => [
        { id: `u-${t}`, role: "user" as const, content: `step ${t}` },
        { id: `a-${t}`, role: "assistant" as const, content: `done ${t}` },
      ]),
    ]);
    await compactRange(conversation.session, { fromId: "u-one", toId: "a-two", summary: "Steps one and two." });
    await compactRange(conversation.session, { fromId: "u-three", toId: "a-four", summary: "Steps three and four." });
    await conversation.save([{ role: "user", content: "step seven" }]);
  }

  /** The prompt the model receives for one generateText call on the loaded conversation. */
  async function promptOf(conversation: Conversation): Promise<PromptMessage[]> {
    const model = scriptedModel([result([text("done")])]);
    await generateText({ model, ...(await conversation.load()) });
    expectValidRequests(model);
    return model.doGenerateCalls[0]?.prompt ?? [];
  }

  /**
   * A generateText tool loop on the loaded conversation, compacting through prepareStep, the model answering
   * with `results`; the response saved. The prompts of the model's requests.
   */
  async function toolLoop(conversation: Conversation, results: ModelResult[], words = 0): Promise<PromptMessage[][]> {
    const model = scriptedModel(results);
    const answer = await generateText({
      model,
      tools: { weather: weatherTool(words) },
      ...(await conversation.load()),
      stopWhen: stepCountIs(20),
      prepareStep: conversation.prepareStep,
    });
    await conversation.saveResponse(answer);
    expect(answer.finishReason).toBe("stop");
    expectValidRequests(model);
    return model.doGenerateCalls.map((c) => c.prompt);
  }

  it("marks the system prompt, the view's last summary and the last two messages of the request", async () => {
    const conversation = await open({ anthropicCache: true });
    await twiceCompacted(conversation);
    expect(conversation.session.view().lastSummaryId).toBeDefined();
    const prompt = await promptOf(conversation);
    const first = lastHolding(prompt, "Steps one and two.");
    const last = lastHolding(prompt, "Steps three and four.");
    expect(first).toBeGreaterThan(0);
    expect(last).toBeGreaterThan(first);
    expect(prompt[0]?.role).toBe("system");
    expect(marks(prompt)).toStrictEqual([
      { message: 0, control: FIVE_MINUTES },
      { message: last, control: FIVE_MINUTES },
      { message: prompt.length - 2, control: FIVE_MINUTES },
      { message: prompt.length - 1, control: FIVE_MINUTES },
    ]);
    expect(JSON.stringify(prompt.at(-1)?.content)).toContain("step seven");
  });

  it("places none without the option (the default)", async () => {
    const conversation = await open();
    await twiceCompacted(conversation);
    const prompt = await promptOf(conversation);
    expect(marks(prompt)).toStrictEqual([]);
    expect(JSON.stringify(prompt)).not.toContain("anthropic");
    const off = await open({ anthropicCache: false });
    await twiceCompacted(off);
    expect(marks(await promptOf(off))).toStrictEqual([]);
  });

  it("passes the ttl through", async () => {
    const conversation = await open({ anthropicCache: { ttl: "1h" } });
    await twiceCompacted(conversation);
    const found = marks(await promptOf(conversation));
    expect(found).toHaveLength(4);
    for (const mark of found) expect(mark.control).toStrictEqual({ type: "ephemeral", ttl: "1h" });
  });

  it("merges into a stored message's provider options, keeps a stored breakpoint, counts it, and stores none of its own", async () => {
    const runtime = await sharedRuntime();
    const conversation = await openConversation({ runtime, anthropicCache: true });
    const u2: ModelMessage = {
      role: "user",
      content: "and now?",
      providerOptions: { openai: { user: "u-42" }, anthropic: { note: "kept" } },
    };
    const stored: ModelMessage[] = [
      { role: "system", content: "You are terse." },
      {
        role: "user",
        content: "a long document",
        providerOptions: { anthropic: { cacheControl: { type: "ephemeral", ttl: "1h" } } },
      },
      { role: "assistant", content: "read" },
      u2,
    ];
    await conversation.save(stored);
    const prompt = await promptOf(conversation);
    // The user's breakpoint on the document (1h) stays, and counts: three of ours make four.
    expect(marks(prompt)).toStrictEqual([
      { message: 0, control: FIVE_MINUTES },
      { message: 1, control: { type: "ephemeral", ttl: "1h" } },
      { message: 2, control: FIVE_MINUTES },
      { message: 3, control: FIVE_MINUTES },
    ]);
    expect(prompt[3]?.providerOptions).toStrictEqual({
      openai: { user: "u-42" },
      anthropic: { note: "kept", cacheControl: FIVE_MINUTES },
    });
    // The store holds the messages as saved: another handle without the option loads them unmarked.
    const plain = await openConversation({ runtime, sessionId: conversation.sessionId });
    const { instructions, messages } = await plain.load();
    expect([...(instructions ?? []), ...messages]).toStrictEqual(stored);
  });

  it("never more than four: with three breakpoints stored, only the last message gets one", async () => {
    const conversation = await open({ anthropicCache: true });
    const mark = { anthropic: { cacheControl: { type: "ephemeral" } } };
    await conversation.save([
      { role: "system", content: "You are terse." },
      { role: "user", content: "one", providerOptions: mark },
      { role: "assistant", content: [{ type: "text", text: "two", providerOptions: mark }] },
      { role: "user", content: "three", providerOptions: { anthropic: { cache_control: { type: "ephemeral" } } } },
      { role: "assistant", content: "four" },
      { role: "user", content: "five" },
    ]);
    const prompt = await promptOf(conversation);
    expect(marks(prompt).map((m) => m.message)).toStrictEqual([1, 2, 3, 5]);
    // A last message that ends on the user's own breakpoint keeps it as it is (its ttl too).
    await conversation.save([
      { role: "assistant", content: "six" },
      {
        role: "user",
        content: "seven",
        providerOptions: { anthropic: { cacheControl: { type: "ephemeral", ttl: "1h" } } },
      },
    ]);
    const again = await promptOf(conversation);
    expect(marks(again)).toStrictEqual([
      { message: 1, control: FIVE_MINUTES },
      { message: 2, control: FIVE_MINUTES },
      { message: 3, control: FIVE_MINUTES },
      { message: 7, control: { type: "ephemeral", ttl: "1h" } },
    ]);
  });

  it("prepareStep: the compacted view it hands a step carries the breakpoints, and every request has four at most", async () => {
    const conversation = await open({ model: "gpt-4o", contextWindow: 4_000, anthropicCache: true });
    await conversation.save([
      { role: "system", content: "You check the weather." },
      { role: "user", content: "Check ten cities" },
    ]);
    const steps = Array.from({ length: 10 }, (_, i) => result([call(`s${i}`, "weather", { city: `c${i}` })]));
    const prompts = await toolLoop(conversation, [...steps, result([text("Done.")])], 300);
    expect(prompts).toHaveLength(11);
    expect((await conversation.session.history()).length).toBeGreaterThan(0);
    for (const prompt of prompts) {
      const found = marks(prompt);
      expect(found.length).toBeLessThanOrEqual(4);
      expect(found[0]?.message).toBe(0); // the system prompt, on every step
      expect(found.slice(-2).map((m) => m.message)).toStrictEqual([prompt.length - 2, prompt.length - 1]);
    }
    // After the compaction the summary the step was handed carries one too.
    const compacted = prompts.filter((prompt) => JSON.stringify(prompt).includes("CONTEXT SUMMARY"));
    expect(compacted.length).toBeGreaterThan(0);
    for (const prompt of compacted) {
      expect(marks(prompt).map((m) => m.message)).toStrictEqual([
        0,
        lastHolding(prompt, "CONTEXT SUMMARY"),
        prompt.length - 2,
        prompt.length - 1,
      ]);
    }
    // No breakpoint reached the store.
    expect(JSON.stringify(conversation.session.view().messages)).not.toContain("cacheControl");
  });

  it("prepareStep without a compaction moves the last two breakpoints to each step's last messages; the summary's stays", async () => {
    const conversation = await open({ anthropicCache: true });
    await twiceCompacted(conversation);
    const cities = ["Oslo", "Rome", "Paris"];
    const calls = cities.map((city, i) => result([call(`c${i + 1}`, "weather", { city })]));
    const prompts = await toolLoop(conversation, [...calls, result([text("All sunny.")])]);
    expect(await conversation.session.history()).toHaveLength(2); // the two summaries: no compaction in the loop
    expect(prompts).toHaveLength(4);
    for (const prompt of prompts) {
      expect(marks(prompt).map((m) => m.message)).toStrictEqual([
        0,
        lastHolding(prompt, "Steps three and four."),
        prompt.length - 2,
        prompt.length - 1,
      ]);
    }
    expect(JSON.stringify(prompts.at(-1)?.at(-1))).toContain("c3");
  });

  it("prepareStep moves them in streamText too", async () => {
    const conversation = await open({ anthropicCache: true });
    await conversation.save([
      { role: "system", content: "You check the weather." },
      { role: "user", content: "Oslo?" },
    ]);
    const model = streamingToolModel("weather", { city: "Oslo" });
    const stream = streamText({
      model,
      tools: { weather: weatherTool() },
      ...(await conversation.load()),
      stopWhen: stepCountIs(5),
      prepareStep: conversation.prepareStep,
    });
    expect(await stream.text).toBe("Thanks.");
    await conversation.saveResponse(stream);
    const [first, second] = model.doStreamCalls.map((c) => c.prompt);
    expect(marks(first ?? []).map((m) => m.message)).toStrictEqual([0, 1]);
    expect(second?.map((m) => m.role)).toStrictEqual(["system", "user", "assistant", "tool"]);
    expect(marks(second ?? []).map((m) => m.message)).toStrictEqual([0, 2, 3]);
  });

  it("refuses an anthropicCache that is not true, false or { ttl: '5m' | '1h' }", async () => {
    for (const [value, path] of [
      ["yes", "anthropicCache"],
      [null, "anthropicCache"],
      [{ ttl: "2h" }, "anthropicCache.ttl"],
      [{ tll: "1h" }, "tll"],
    ] as const) {
      const error = await rejection(openConversation({ url: ":memory:", anthropicCache: value as never }));
      expect(isPalimpsestError(error) && error.code === "VALIDATION", String(error)).toBe(true);
      expect((error as { details: { path?: string } }).details.path).toBe(path);
    }
    const unknown = await rejection(openConversation({ url: ":memory:", anthropicCach: true } as never));
    expect(String(unknown)).toMatch(/unknown openConversation option: anthropicCach/);
    expect(JSON.stringify(unknown)).toContain("anthropicCache");
  });
});
