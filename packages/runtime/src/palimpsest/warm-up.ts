import {
  decideSequence,
  indexedTerms,
  initialState,
  NO_KEYS,
  type SessionCommand,
  type TokenCounter,
} from "@palimpsest/core";
import { toMessage } from "../runtime/message-input.ts";

/**
 * Runs an agent step through the append path's CPU work once, writing nothing: a user message and an
 * assistant reply with a tool call, and its result, validated, counted, decided (the events' schemas
 * checked) and split into search terms. Each schema, expression and counter compiles on its first use
 * (about 10 ms in all): done where the runtime opens, a session's first append costs what a later one does.
 */
export async function warmUpAppendPath(counter: TokenCounter): Promise<void> {
  const inputs = [
    { role: "user" as const, content: "Read src/app.ts and tell me what main() does." },
    {
      role: "assistant" as const,
      content: [{ type: "text" as const, text: "Reading it." }],
      toolCalls: [{ id: "warm-up-call", name: "read_file", arguments: '{"path":"src/app.ts"}' }],
    },
    { role: "tool" as const, toolCallId: "warm-up-call", content: "export function main() {\n  step();\n}\n" },
  ];
  const messages = [];
  for (const [i, input] of inputs.entries()) {
    const message = toMessage(input, `messages[${i}]`, `warm-up#${i}`);
    messages.push({ message, tokens: await counter.countMessageAsync(message) });
  }
  const commands: SessionCommand[] = [
    { type: "start", data: { encoding: counter.encoding } },
    { type: "append-messages", messages, turnId: "warm-up" },
    { type: "complete-turn", turnId: "warm-up", usage: { promptTokens: 1, completionTokens: 1 } },
  ];
  for (const event of decideSequence(initialState("warm-up"), commands, NO_KEYS)) indexedTerms(event);
}
