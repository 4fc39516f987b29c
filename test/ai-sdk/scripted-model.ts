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

/** What else a streamingToolModel says: its call id, its answer, parts streamed with the call (sources, files). */
export interface StreamingToolOptions {
  /** The call's id (default `call-<prompt length>`). */
  callId?: string;
  /** The answer's text (default `Thanks.`). */
  answer?: string;
  /** Stream parts sent before the call, in the same step. */
  withCall?: readonly object[];
}

/** A streaming mock: a call of `toolName` for a new question, a text answer once the prompt ends with its result. */
export function streamingToolModel(
  toolName: string,
  input: unknown,
  { callId, answer = "Thanks.", withCall = [] }: StreamingToolOptions = {},
): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const answered = prompt.at(-1)?.role === "tool";
      const parts = answered
        ? [
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: answer },
            { type: "text-end", id: "t" },
          ]
        : [
            ...withCall,
            {
              type: "tool-call",
              toolCallId: callId ?? `call-${prompt.length}`,
              toolName,
              input: JSON.stringify(input),
            },
          ];
      const { finishReason, usage } = result(answered ? [text(answer)] : [call("x", toolName, input)]);
      const chunks = [{ type: "stream-start", warnings: [] }, ...parts, { type: "finish", finishReason, usage }];
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
