import { MockLanguageModelV4 } from "ai/test";

/** One result of the mock model's doGenerate. */
export type ModelResult = Extract<
  NonNullable<ConstructorParameters<typeof MockLanguageModelV4>[0]>["doGenerate"],
  { content: unknown }
>;
/** One content part of a mock model result. */
export type ModelContent = ModelResult["content"][number];

/** A mock result of `content`, with the finish reason it implies and fixed usage. */
export function result(content: ModelContent[], inputTokens = 100): ModelResult {
  const calls = content.some((c) => c.type === "tool-call" && c.providerExecuted !== true);
  return {
    content,
    finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined },
    usage: {
      inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 20, text: 20, reasoning: 0 },
    },
    warnings: [],
  };
}

/** A tool call the mock model makes (input as the JSON text a provider sends). */
export function call(toolCallId: string, toolName: string, input: unknown): ModelContent {
  return { type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) };
}

/** A text answer. */
export function text(value: string): ModelContent {
  return { type: "text", text: value };
}

/** A mock model answering each call with the next of `results` (the last one repeated after the end). */
export function scriptedModel(results: readonly ModelResult[]): MockLanguageModelV4 {
  let next = 0;
  return new MockLanguageModelV4({
    doGenerate: async () => {
      const step = results[Math.min(next++, results.length - 1)];
      if (step === undefined) throw new Error("scriptedModel needs at least one result");
      return step;
    },
  });
}
