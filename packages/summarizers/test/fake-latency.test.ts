import { OpenAICompatibleSummarizer } from "@palimpsest/summarizers";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "./support/fake-provider.ts";
import { SAMPLE_REQUEST, sectionedAnswer } from "./support/sample.ts";

const completion = (content: string) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "local-model",
  choices: [
    { index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: "stop", logprobs: null },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
});

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

describe("the fake provider's latency per token (for the benches)", () => {
  it("charges each request for the tokens of its body, counted as told, and still answers", async () => {
    const words = (text: string) => text.split(/\s+/).length;
    provider = await startFakeProvider([{ body: completion(sectionedAnswer("ok")) }], "/v1", {
      perInputTokenMs: 0.001,
      perOutputTokenMs: 0.001,
      countTokens: words,
    });
    const s = new OpenAICompatibleSummarizer({ model: "m", baseURL: provider.baseURL, apiKey: "k", maxRetries: 0 });
    const result = await s.summarize(SAMPLE_REQUEST);
    expect(result.text).toBe(sectionedAnswer("ok"));
    const longer = { ...SAMPLE_REQUEST, messages: [...SAMPLE_REQUEST.messages, ...SAMPLE_REQUEST.messages] };
    await s.summarize(longer);
    const [first, second] = provider.received;
    expect(first?.inputTokens).toBe(words(first?.raw ?? ""));
    expect(second?.inputTokens).toBeGreaterThan(first?.inputTokens ?? Number.POSITIVE_INFINITY);
  });

  it("counts characters / 4 by default", async () => {
    provider = await startFakeProvider([{ body: completion(sectionedAnswer("ok")) }], "/v1", { perInputTokenMs: 0 });
    const s = new OpenAICompatibleSummarizer({ model: "m", baseURL: provider.baseURL, apiKey: "k", maxRetries: 0 });
    await s.summarize(SAMPLE_REQUEST);
    const [request] = provider.received;
    expect(request?.inputTokens).toBe(Math.ceil((request?.raw.length ?? 0) / 4));
  });
});
