import { generateText, type ModelMessage, modelMessageSchema } from "ai";
import type { MockLanguageModelV4 } from "ai/test";
import { expect } from "vitest";
import { result, text } from "./scripted-model.ts";

/** A message as the pairing check reads it: a ModelMessage, or a message of a provider prompt. */
interface PromptLike {
  role: string;
  content: unknown;
}

/**
 * What is wrong with the tool pairs of `messages`: a result whose call is not in the assistant message
 * right before its tool messages, or a (client-executed) call with no result before the next message.
 */
export function pairingProblems(messages: readonly PromptLike[]): string[] {
  const problems: string[] = [];
  let open = new Set<string>();
  for (const [i, message] of messages.entries()) {
    const parts = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
    if (message.role === "tool") {
      for (const part of parts) {
        if (part.type !== "tool-result") continue;
        if (!open.delete(String(part.toolCallId))) problems.push(`message ${i}: result ${part.toolCallId} has no call`);
      }
      continue;
    }
    for (const id of open) problems.push(`message ${i}: call ${id} has no result before it`);
    open = new Set();
    for (const part of parts) {
      if (part.type === "tool-call" && part.providerExecuted !== true) open.add(String(part.toolCallId));
    }
  }
  for (const id of open) problems.push(`end: call ${id} has no result`);
  return problems;
}

/** Every loaded message passes the AI SDK's schema and the pairing check. */
export function expectValidMessages(messages: readonly ModelMessage[]): void {
  const refused = messages.flatMap((m, i) => (modelMessageSchema.safeParse(m).success ? [] : [i]));
  expect(refused, "messages modelMessageSchema refuses").toEqual([]);
  expect(pairingProblems(messages)).toEqual([]);
}

/** Every request `model` received passes the pairing check (no orphaned result, no missing result). */
export function expectValidRequests(model: MockLanguageModelV4): void {
  expect(model.doGenerateCalls.length + model.doStreamCalls.length).toBeGreaterThan(0);
  for (const request of [...model.doGenerateCalls, ...model.doStreamCalls]) {
    expect(pairingProblems(request.prompt)).toEqual([]);
  }
}

/**
 * The loaded conversation is a request generateText accepts: valid messages, then one step with a mock
 * model that succeeds, its request valid too.
 */
export async function expectAccepted(loaded: {
  instructions?: Parameters<typeof generateText>[0]["instructions"];
  messages: ModelMessage[];
}): Promise<void> {
  expectValidMessages(loaded.messages);
  const { MockLanguageModelV4 } = await import("ai/test");
  const model = new MockLanguageModelV4({ doGenerate: result([text("ok")]) });
  const messages: ModelMessage[] = [...loaded.messages, { role: "user", content: "and now?" }];
  const answer = await generateText({
    model,
    messages,
    ...(loaded.instructions ? { instructions: loaded.instructions } : {}),
  });
  expect(answer.text).toBe("ok");
  expectValidRequests(model);
}
