import {
  type AppendOptions,
  type DomainEvent,
  decideSequence,
  freshKeysOf,
  initialState,
  type Message,
  NO_KEYS,
  type SessionCommand,
  searchTerms,
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

/** Rounds of VARIED_TEXT_CHARS each that warmUpAppendPath counts and indexes. */
const VARIED_ROUNDS = 4;
const VARIED_TEXT_CHARS = 4096;

/**
 * Runs an agent step through the runtime's CPU work on the append path once, its messages validated and
 * counted (each expression and counter compiles on its first use), then counts and indexes (searchTerms)
 * 16 KB of text made of words no text has had yet. A fresh process's counting and search terms run slowly
 * until the engine has compiled them (a first text of unseen words counted at about a tenth of the later
 * speed, 4 KB in about 10 ms); done where the runtime opens, beside warmUpStore (the decider, the events'
 * checks and the store's statements), a session's first appends cost about what later ones do.
 */
export async function warmUpAppendPath(counter: TokenCounter): Promise<void> {
  for (const message of stepMessages()) await counter.countMessageAsync(message);
  const random = seededRandom(0x5eed);
  for (let round = 0; round < VARIED_ROUNDS; round++) {
    const text = variedText(random, VARIED_TEXT_CHARS);
    counter.countText(text);
    searchTerms(text);
  }
}

/** A deterministic pseudo-random integer below `n` on each call (a linear congruential generator). */
function seededRandom(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state % n;
  };
}

/** Letters by frequency: the made-up words are word-like, so the tokenizer's merges run on them. */
const LETTERS = "etaoinshrdlcumwfgypbvkjxqz";

/**
 * About `chars` characters of made-up prose, code and tool output (words, identifiers, paths, figures,
 * hashes, JSON, indentation and some non-ASCII text): each piece new to the tokenizer, as a fresh
 * process's first real texts are, so its byte-pair merges run rather than its kept counts.
 */
function variedText(random: (n: number) => number, chars: number): string {
  const word = () => {
    let w = "";
    for (let i = 2 + random(9); i > 0; i--) w += LETTERS[Math.min(25, random(14) + random(13))];
    return w;
  };
  const identifier = () =>
    `${word()}${word().replace(/^./, (c) => c.toUpperCase())}${random(3) === 0 ? `_${random(1000)}` : ""}`;
  const pieces: (() => string)[] = [
    word,
    word,
    word,
    identifier,
    () => `${random(10_000)}`,
    () => `${(random(100_000) / 100).toFixed(2)} ms`,
    () => `src/${word()}/${identifier()}.ts:${random(900)}:${random(80)}`,
    () => `${random(0x1000000).toString(16).padStart(6, "0")}${random(0x1000000).toString(16)}`,
    () => `"${identifier()}": ${random(100)},`,
    () => `\n${" ".repeat(random(4) * 2)}`,
    () => `${word()}. ${word().replace(/^./, (c) => c.toUpperCase())}`,
    () => `(${word()}, ${word()})`,
    () => ["données", "Straße", "naïve", "東京の設定", "—", "👍", "ошибка"][random(7)] as string,
  ];
  let text = "";
  while (text.length < chars)
    text += `${(pieces[random(pieces.length)] as () => string)()}${random(5) === 0 ? "" : " "}`;
  return text;
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
