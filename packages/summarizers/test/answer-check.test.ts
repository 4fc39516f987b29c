import {
  type Message,
  SUMMARY_PROMPT_VERSION,
  SUMMARY_SECTIONS,
  SUMMARY_SYSTEM_PROMPT,
  type Summarizer,
  type SummaryRequest,
} from "@palimpsest/core";
import { AnthropicSummarizer, OpenAICompatibleSummarizer } from "@palimpsest/summarizers";
import { afterEach, describe, expect, it } from "vitest";
import { expectSummarizerError } from "./support/expect-failure.ts";
import { type FakeProvider, startFakeProvider } from "./support/fake-provider.ts";
import { SAMPLE_REQUEST, sectionedAnswer } from "./support/sample.ts";

/** A provider's answer body with `text` and the output tokens it reports (none: the usage is left out). */
type Answer = (text: string, outputTokens?: number) => unknown;

const openaiAnswer: Answer = (text, outputTokens) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: text, refusal: null }, finish_reason: "stop" }],
  ...(outputTokens === undefined
    ? {}
    : { usage: { prompt_tokens: 10, completion_tokens: outputTokens, total_tokens: 10 + outputTokens } }),
});
const anthropicAnswer: Answer = (text, outputTokens) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "m",
  content: [{ type: "text", text }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: outputTokens ?? 1 },
});

const PROVIDERS: [string, Answer, (baseURL: string) => Summarizer, string][] = [
  [
    "openai-compatible",
    openaiAnswer,
    (baseURL) => new OpenAICompatibleSummarizer({ model: "m", baseURL, apiKey: "k", maxRetries: 0 }),
    "/v1",
  ],
  [
    "anthropic",
    anthropicAnswer,
    (baseURL) => new AnthropicSummarizer({ model: "m", baseURL, apiKey: "k", maxRetries: 0 }),
    "",
  ],
];

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

async function answering(body: unknown, make: (baseURL: string) => Summarizer, prefix: string): Promise<Summarizer> {
  provider = await startFakeProvider([{ body }], prefix);
  return make(provider.baseURL);
}

describe.each(PROVIDERS)("%s summarizer: the answer check", (_name, answer, make, prefix) => {
  it("accepts an answer with every section within the budget, and sends the versioned prompt", async () => {
    const s = await answering(answer(sectionedAnswer("Deploying."), 120), make, prefix);
    expect((await s.summarize(SAMPLE_REQUEST)).text).toBe(sectionedAnswer("Deploying."));
    expect(s.promptVersion).toBe(SUMMARY_PROMPT_VERSION);
    expect(SUMMARY_PROMPT_VERSION).toBe("sections-v3");
    for (const title of SUMMARY_SECTIONS) expect(SUMMARY_SYSTEM_PROMPT).toContain(`## ${title}\n`);
    expect(provider?.received[0]?.raw).toContain("at most 500 tokens");
  });

  it("fails as malformed when a section is missing", async () => {
    const s = await answering(answer(sectionedAnswer("x", ["Files", "Recovery"]), 120), make, prefix);
    const failure = await expectSummarizerError(s.summarize(SAMPLE_REQUEST));
    expect(failure.details.reason).toBe("malformed");
    expect(failure.message).toContain("Files, Recovery");
  });

  it("fails as malformed when the answer is over the budget", async () => {
    const s = await answering(answer(sectionedAnswer("x"), 501), make, prefix);
    const failure = await expectSummarizerError(s.summarize(SAMPLE_REQUEST));
    expect(failure.details.reason).toBe("malformed");
    expect(failure.message).toContain("over its budget of 500");
  });
});

describe("the summary prompt", () => {
  it("puts the messages older than the previous summary first, gives user ids and the recovery lines", async () => {
    provider = await startFakeProvider([{ body: openaiAnswer(sectionedAnswer("ok"), 10) }], "/v1");
    const s = new OpenAICompatibleSummarizer({ model: "m", baseURL: provider.baseURL, apiKey: "k", maxRetries: 0 });
    const step1: Message = { id: "h1", role: "user", content: [{ type: "text", text: "Step 1" }] };
    const step3: Message = { id: "n1", role: "user", content: [{ type: "text", text: "Step 3" }] };
    const request: SummaryRequest = {
      messages: [step1, step3],
      previousSummary: "## User Requests\n[request 1]\n```\nStep 2\n```",
      previousSummaryAt: 1,
      maxOutputTokens: 500,
    };
    await s.summarize(request);
    const body = provider.received[0]?.json as { messages: { content: string }[] };
    const prompt = body.messages[1]?.content ?? "";
    const order = ["<older-transcript>", "Step 1", "<previous-summary>", "Step 2", "<transcript>", "Step 3"];
    const at = order.map((s) => prompt.indexOf(s));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((x, y) => x - y)).toEqual(at);
    expect(prompt).toContain("[user · h1]");
    expect(prompt).toContain("- Superseded 2 messages and 1 earlier summary: h1 … n1"); // the previous summary is a target too
    expect(prompt).toContain("`palimpsest expand <session> <compaction-id> --deep`");
  });
});
