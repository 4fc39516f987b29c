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

/** A streaming mock: a call of `toolName` for a new question, a text answer once the prompt ends with its result. */
export function streamingToolModel(toolName: string, input: unknown): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const answered = prompt.at(-1)?.role === "tool";
      const parts = answered
        ? ([
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Thanks." },
            { type: "text-end", id: "t" },
          ] as const)
        : ([
            { type: "tool-call", toolCallId: `call-${prompt.length}`, toolName, input: JSON.stringify(input) },
          ] as const);
      const { finishReason, usage } = result(answered ? [text("Thanks.")] : [call("x", toolName, input)]);
      const chunks = [
        { type: "stream-start" as const, warnings: [] },
        ...parts,
        { type: "finish" as const, finishReason, usage },
      ];
      const stream = new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      });
      return { stream };
    },
  });
}
