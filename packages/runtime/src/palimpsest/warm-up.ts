import {
  type AppendOptions,
  type DomainEvent,
  decideSequence,
  freshKeysOf,
  initialState,
  type Message,
  NO_KEYS,
  type SessionCommand,
  type TokenCounter,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import { toMessage } from "../runtime/message-input.ts";

/** An agent step: a user message, an assistant reply with a tool call, and its result. */
const STEP_INPUTS = [
  { role: "user" as const, content: "Read src/app.ts and tell me what main() does." },
  {
    role: "assistant" as const,
    content: [{ type: "text" as const, text: "Reading it." }],
    toolCalls: [{ id: "warm-up-call", name: "read_file", arguments: '{"path":"src/app.ts"}' }],
  },
  { role: "tool" as const, toolCallId: "warm-up-call", content: "export function main() {\n  step();\n}\n" },
];

/** The warm-up step's messages, validated as Session.append validates its input. */
function stepMessages(): Message[] {
  return STEP_INPUTS.map((input, i) => toMessage(input, `messages[${i}]`, `warm-up#${i}`));
}

/**
 * Runs an agent step through the runtime's CPU work on the append path once: its messages validated and
 * counted (each expression and counter compiles on its first use). Done where the runtime opens, beside
 * warmUpStore (the decider, the events' checks and the store's statements), a session's first append costs
 * about what a later one does.
 */
export async function warmUpAppendPath(counter: TokenCounter): Promise<void> {
  for (const message of stepMessages()) await counter.countMessageAsync(message);
  for (let round = 0; round < 3; round++) counter.countText(toolOutput(round));
}

/**
 * About 4 KB of tool output unlike any other (compiler errors with paths, names and figures): the step
 * above is too short for the tokenizer's byte-pair merges to be optimized, and a text counted once has its
 * pieces kept, so each round differs.
 */
function toolOutput(round: number): string {
  const lines: string[] = [];
  for (let i = 0; i < 32; i++) {
    const n = round * 32 + i;
    lines.push(
      `src/feature${n % 7}/handler_${n * 37}.ts:${n * 13 + 4}:${(n % 9) + 1} - error TS${2300 + n}: Property 'value${n}' does not exist on type 'Record<${n % 5}>'; took ${(n * 1.37).toFixed(2)} ms`,
    );
  }
  return lines.join("\n");
}

/** What warmUpStore needs of the store (OpenedEventStore has it): appends run and rolled back. */
interface AppendRehearsal {
  warmUpAppends(
    appends: readonly { sessionId: string; events: readonly DomainEvent[]; options: AppendOptions }[],
  ): Promise<void>;
}

/**
 * Warms the store's side of a session's first appends, writing nothing: its start, then the agent step with
 * its turn completed, decided as Session decides them (on made-up token counts: no tokenizer needed, so it
 * runs while the tokenizer loads) and run by the store in a transaction it rolls back
 * (OpenedEventStore.warmUpAppends: the events' checks and search terms, the statements prepared and
 * planned). Rejects when the database refuses; the caller only loses the saving.
 */
export async function warmUpStore(store: AppendRehearsal): Promise<void> {
  const sessionId = uuidv7();
  const commands: SessionCommand[] = [
    { type: "start", data: { encoding: "o200k_base" } },
    { type: "append-messages", messages: stepMessages().map((message) => ({ message, tokens: 1 })), turnId: "warm-up" },
    { type: "complete-turn", turnId: "warm-up", usage: { promptTokens: 1, completionTokens: 1 } },
  ];
  const [started, ...step] = decideSequence(initialState(sessionId), commands, NO_KEYS);
  if (started === undefined) return;
  await store.warmUpAppends([
    { sessionId, events: [started], options: { expectedVersion: "no-stream", freshKeys: freshKeysOf([started]) } },
    { sessionId, events: step, options: { expectedVersion: 1, freshKeys: freshKeysOf(step) } },
  ]);
}
