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

/** The command starting the warm-up's session. */
const START: SessionCommand = { type: "start", data: { encoding: "o200k_base" } };

/**
 * The sizes of batch (events) an agent's steps make: a step's messages with its turn's completion, or alone.
 * The store's append statement differs with the number of rows and with an idempotency key (PostgreSQL
 * prepares each shape on the connection, SQLite each number of rows), so a first append of a shape not
 * warmed prepared its statement then.
 */
const WARMED_BATCH_SIZES = 6;

/** One rehearsed append: its events, and the idempotency key of a keyed one (the OpenAI Agents adapter's). */
interface RehearsedBatch {
  events: DomainEvent[];
  idempotencyKey?: string;
}

/**
 * Warms the store's side of a session's first appends, writing nothing: its start, the agent step with its
 * turn completed, and batches of every size up to WARMED_BATCH_SIZES events, with an idempotency key and
 * without, decided as Session decides them (on made-up token counts: no tokenizer needed, so it runs while
 * the tokenizer loads) and run by the store in a transaction it rolls back (OpenedEventStore.warmUpAppends:
 * the events' checks and search terms, the statements prepared). Rejects when the database refuses; the
 * caller only loses the saving.
 */
export async function warmUpStore(store: AppendRehearsal): Promise<void> {
  const sessionId = uuidv7();
  const [started, ...stepEvents] = decideSequence(
    initialState(sessionId),
    [START, ...turnCommands("warm-up", stepMessages(), true)],
    NO_KEYS,
  );
  if (started === undefined) return;
  const batches: RehearsedBatch[] = [{ events: [started] }, { events: stepEvents }];
  for (let size = 1; size <= WARMED_BATCH_SIZES; size++) {
    if (size !== stepEvents.length) batches.push({ events: sizedBatch(sessionId, size, "plain") });
    batches.push({ events: sizedBatch(sessionId, size, "keyed"), idempotencyKey: `warm-up-${size}` });
  }
  let version = 0;
  await store.warmUpAppends(
    batches.map(({ events, idempotencyKey }) => {
      const expectedVersion = version === 0 ? ("no-stream" as const) : version;
      version += events.length;
      const options = { expectedVersion, freshKeys: freshKeysOf(events) };
      return { sessionId, events, options: idempotencyKey === undefined ? options : { ...options, idempotencyKey } };
    }),
  );
}

/**
 * A batch of `size` events for the warm-up's started session: size - 1 user messages and their turn's
 * completion (one message alone for size 1); `tag` keeps its ids apart from the other batches'.
 */
function sizedBatch(sessionId: string, size: number, tag: string): DomainEvent[] {
  const complete = size > 1;
  const turnId = `warm-up-${tag}-${size}`;
  const messages = Array.from({ length: complete ? size - 1 : 1 }, (_, i) =>
    toMessage({ role: "user", content: `Warm-up batch of ${size}, message ${i}.` }, "warm-up", `${turnId}#${i}`),
  );
  // Decided on a fresh state: the start's own event is the first of the sequence.
  const [, ...events] = decideSequence(
    initialState(sessionId),
    [START, ...turnCommands(turnId, messages, complete)],
    NO_KEYS,
  );
  return events;
}

/** A turn's append of `messages` (made-up counts) and, with `complete`, its completion. */
function turnCommands(turnId: string, messages: readonly Message[], complete: boolean): SessionCommand[] {
  const append: SessionCommand = {
    type: "append-messages",
    messages: messages.map((message) => ({ message, tokens: 1 })),
    turnId,
  };
  if (!complete) return [append];
  return [append, { type: "complete-turn", turnId, usage: { promptTokens: 1, completionTokens: 1 } }];
}
