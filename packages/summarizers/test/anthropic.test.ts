import { SUMMARY_SYSTEM_PROMPT } from "@palimpsest/core";
import { type AnthropicOptions, AnthropicSummarizer } from "@palimpsest/summarizers";
import { afterEach, describe, expect, it } from "vitest";
import { expectSummarizerError } from "./support/expect-failure.ts";
import { type CannedResponse, type FakeProvider, startFakeProvider } from "./support/fake-provider.ts";
import { PLANTED_SECRETS, SAMPLE_REQUEST, sectionedAnswer } from "./support/sample.ts";

const message = (text: string, stop = "end_turn") => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-test",
  content: text === "" ? [] : [{ type: "text", text }],
  stop_reason: stop,
  stop_sequence: null,
  usage: { input_tokens: 100, output_tokens: 40, cache_read_input_tokens: 20, cache_creation_input_tokens: 0 },
});
const error = (status: number, type: string, headers?: Record<string, string>): CannedResponse => ({
  status,
  body: { type: "error", error: { type, message: type } },
  ...(headers === undefined ? {} : { headers }),
});

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

async function summarizer(responses: CannedResponse[], options: Partial<AnthropicOptions> = {}) {
  provider = await startFakeProvider(responses);
  return new AnthropicSummarizer({
    model: "claude-test",
    baseURL: provider.baseURL,
    apiKey: "test-key",
    maxRetries: 0,
    ...options,
  });
}

describe("AnthropicSummarizer", () => {
  it("sends the system prompt and the redacted input, and reports usage", async () => {
    const s = await summarizer([{ body: message(sectionedAnswer("Deploy with password=oops-leaked")) }]);
    const result = await s.summarize(SAMPLE_REQUEST);
    // input_tokens are the uncached ones: inputTokens adds the cache's reads (20) and writes (0) to them.
    expect(result).toEqual({
      text: sectionedAnswer("Deploy with password=[REDACTED]"),
      inputTokens: 120,
      outputTokens: 40,
      cachedInputTokens: 20,
      cacheWriteTokens: 0,
    });
    const [request] = provider?.received ?? [];
    expect(request?.url).toBe("/v1/messages");
    expect(request?.headers["x-api-key"] ?? request?.headers.authorization).toMatch(/^(Bearer )?test-key$/);
    const body = request?.json as {
      model: string;
      max_tokens: number;
      system: string;
      messages: { role: string; content: string }[];
    };
    expect(body).toMatchObject({ model: "claude-test", max_tokens: 500, system: SUMMARY_SYSTEM_PROMPT });
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0]?.content).toContain("<transcript>");
    for (const secret of PLANTED_SECRETS) expect(request?.raw).not.toContain(secret);
  });

  it.each([
    [401, "authentication_error", "auth"],
    [403, "permission_error", "auth"],
    [500, "api_error", "other"],
  ] as const)("classifies HTTP %i as %s → %s", async (status, type, reason) => {
    const s = await summarizer([error(status, type)]);
    expect((await expectSummarizerError(s.summarize(SAMPLE_REQUEST))).details.reason).toBe(reason);
  });

  it("classifies 429 as rate-limited with retry-after", async () => {
    const s = await summarizer([error(429, "rate_limit_error", { "retry-after": "3" })]);
    const failure = await expectSummarizerError(s.summarize(SAMPLE_REQUEST));
    expect(failure.details).toMatchObject({ reason: "rate-limited", retryAfterMs: 3_000 });
  });

  it("lets the SDK retry a 500", async () => {
    const s = await summarizer(
      [error(500, "api_error", { "retry-after-ms": "10" }), { body: message(sectionedAnswer("recovered")) }],
      {
        maxRetries: 1,
      },
    );
    expect((await s.summarize(SAMPLE_REQUEST)).text).toBe(sectionedAnswer("recovered"));
    expect(provider?.received).toHaveLength(2);
  });

  it("classifies a slow answer as timeout", async () => {
    const s = await summarizer([{ body: message("late"), delayMs: 2_000 }], { timeoutMs: 150 });
    expect((await expectSummarizerError(s.summarize(SAMPLE_REQUEST))).details.reason).toBe("timeout");
  });

  it.each([
    ["empty", message(""), "empty"],
    ["truncated", message("## Goal\nhalf", "max_tokens"), "truncated"],
    ["refusal", message("", "refusal"), "refused"],
  ] as const)("classifies a %s answer", async (_name, body, reason) => {
    const s = await summarizer([{ body }]);
    expect((await expectSummarizerError(s.summarize(SAMPLE_REQUEST))).details.reason).toBe(reason);
  });
});
