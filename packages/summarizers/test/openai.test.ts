import { SUMMARY_PROMPT_VERSION, SUMMARY_SYSTEM_PROMPT } from "@palimpsest/core";
import { type OpenAICompatibleOptions, OpenAICompatibleSummarizer } from "@palimpsest/summarizers";
import { afterEach, describe, expect, it } from "vitest";
import { expectSummarizerError } from "./support/expect-failure.ts";
import { type CannedResponse, type FakeProvider, startFakeProvider } from "./support/fake-provider.ts";
import { PLANTED_SECRETS, SAMPLE_REQUEST, sectionedAnswer } from "./support/sample.ts";

const completion = (content: string | null, finish = "stop", refusal: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "local-model",
  choices: [{ index: 0, message: { role: "assistant", content, refusal }, finish_reason: finish, logprobs: null }],
  usage: { prompt_tokens: 321, completion_tokens: 45, total_tokens: 366 },
});
const error = (status: number, message: string, headers?: Record<string, string>): CannedResponse => ({
  status,
  body: { error: { message, type: "error", code: null } },
  ...(headers === undefined ? {} : { headers }),
});

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

async function summarizer(responses: CannedResponse[], options: Partial<OpenAICompatibleOptions> = {}) {
  provider = await startFakeProvider(responses, "/v1");
  return new OpenAICompatibleSummarizer({
    model: "local-model",
    baseURL: provider.baseURL,
    apiKey: "test-key",
    maxRetries: 0,
    ...options,
  });
}

describe("OpenAICompatibleSummarizer", () => {
  it("sends one system prompt and the redacted input, and reports usage", async () => {
    const s = await summarizer([
      { body: completion(sectionedAnswer("Deploy. Key was sk-proj-LeakedLeakedLeaked123")) },
    ]);
    const result = await s.summarize(SAMPLE_REQUEST);
    expect(result).toEqual({ text: sectionedAnswer("Deploy. Key was [REDACTED]"), inputTokens: 321, outputTokens: 45 });
    expect(s.promptVersion).toBe(SUMMARY_PROMPT_VERSION);
    const [request] = provider?.received ?? [];
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe("/v1/chat/completions");
    const body = request?.json as { model: string; max_tokens: number; messages: { role: string; content: string }[] };
    expect(body.model).toBe("local-model");
    expect(body.max_tokens).toBe(500);
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(body.messages[0]?.content).toBe(SUMMARY_SYSTEM_PROMPT);
    expect(body.messages[1]?.content).toContain("<previous-summary>");
    expect(body.messages[1]?.content).toContain("[tool call: bash]");
    for (const secret of PLANTED_SECRETS) expect(request?.raw).not.toContain(secret);
  });

  it("reports the input tokens the provider's prompt cache served", async () => {
    const cached = {
      ...completion(sectionedAnswer("Deploy.")),
      usage: {
        prompt_tokens: 321,
        completion_tokens: 45,
        total_tokens: 366,
        prompt_tokens_details: { cached_tokens: 256 },
      },
    };
    const s = await summarizer([{ body: cached }]);
    expect(await s.summarize(SAMPLE_REQUEST)).toEqual({
      text: sectionedAnswer("Deploy."),
      inputTokens: 321,
      outputTokens: 45,
      cachedInputTokens: 256,
    });
  });

  it("classifies 401 as auth", async () => {
    const s = await summarizer([error(401, "bad key")]);
    expect((await expectSummarizerError(s.summarize(SAMPLE_REQUEST))).details.reason).toBe("auth");
  });

  it("classifies 429 as rate-limited with retry-after", async () => {
    const s = await summarizer([error(429, "slow down", { "retry-after": "7" })]);
    const failure = await expectSummarizerError(s.summarize(SAMPLE_REQUEST));
    expect(failure.details).toMatchObject({ reason: "rate-limited", retryAfterMs: 7_000 });
  });

  it("lets the SDK retry a 500, and classifies it as other without retries", async () => {
    const retried = await summarizer(
      [error(500, "boom", { "retry-after-ms": "10" }), { body: completion(sectionedAnswer("fine")) }],
      {
        maxRetries: 1,
      },
    );
    expect((await retried.summarize(SAMPLE_REQUEST)).text).toBe(sectionedAnswer("fine"));
    expect(provider?.received).toHaveLength(2);
    const once = await summarizer([error(500, "boom")]);
    expect((await expectSummarizerError(once.summarize(SAMPLE_REQUEST))).details.reason).toBe("other");
  });

  it("classifies a slow answer and a caller abort as timeout", async () => {
    const s = await summarizer([{ body: completion("late"), delayMs: 2_000 }], { timeoutMs: 150 });
    expect((await expectSummarizerError(s.summarize(SAMPLE_REQUEST))).details.reason).toBe("timeout");
    const signal = AbortSignal.timeout(100);
    const aborted = await summarizer([{ body: completion("late"), delayMs: 2_000 }]);
    expect((await expectSummarizerError(aborted.summarize(SAMPLE_REQUEST, { signal }))).details.reason).toBe("timeout");
  });

  it.each([
    ["empty", completion("  "), "empty"],
    ["null content", completion(null), "empty"],
    ["truncated", completion("## Goal\nhalf", "length"), "truncated"],
    ["content filter", completion(null, "content_filter"), "refused"],
    ["refusal", completion(null, "stop", "I can't help with that."), "refused"],
  ] as const)("classifies a %s answer", async (_name, body, reason) => {
    const s = await summarizer([{ body }]);
    expect((await expectSummarizerError(s.summarize(SAMPLE_REQUEST))).details.reason).toBe(reason);
  });
});
