import { checkOptionKeys, ValidationError } from "@palimpsest/core";
import type { ModelMessage, SystemModelMessage } from "ai";

/** A message's or a part's provider options (`ai` does not export the type). */
type ProviderOptions = NonNullable<ModelMessage["providerOptions"]>;

/**
 * openConversation's `anthropicCache`: prompt-cache breakpoints on the conversation's requests, the AI
 * SDK way (`providerOptions.anthropic.cacheControl`, which `@ai-sdk/anthropic` sends as `cache_control`).
 * `true` (5-minute entries) or `{ ttl }`; `false` or unset: none (the default). See docs/ai-sdk.md.
 */
export type AnthropicCacheOption = boolean | { ttl?: "5m" | "1h" };

/** What `@ai-sdk/anthropic` reads from `providerOptions.anthropic.cacheControl` and sends as `cache_control`. */
export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

/** Anthropic's limit of breakpoints in one request (a request with more is refused). */
const MAX_BREAKPOINTS = 4;

/** The cacheControl an `anthropicCache` option asks for; undefined when it is off. VALIDATION for another value. */
export function anthropicCacheControl(option: unknown): AnthropicCacheControl | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return { type: "ephemeral" };
  if (typeof option !== "object" || option === null || Array.isArray(option)) {
    throw new ValidationError(
      "openConversation anthropicCache must be true, false or { ttl }",
      [`anthropicCache: got ${option === null ? "null" : Array.isArray(option) ? "an array" : typeof option}`],
      { path: "anthropicCache" },
    );
  }
  checkOptionKeys("openConversation anthropicCache", option, { ttl: true });
  const { ttl } = option as { ttl?: unknown };
  if (ttl === undefined) return { type: "ephemeral" };
  if (ttl !== "5m" && ttl !== "1h") {
    throw new ValidationError(
      'openConversation anthropicCache.ttl must be "5m" or "1h"',
      [`anthropicCache.ttl: got ${JSON.stringify(ttl) ?? typeof ttl}`],
      { path: "anthropicCache.ttl" },
    );
  }
  return { type: "ephemeral", ttl };
}

/**
 * Our marked copy of a message at the end of a request → the message before the mark: the marks a later
 * step moves to its own last messages (moveBreakpoints). The system and summary marks are not here: they
 * stay where they are.
 */
const movable = new WeakMap<object, ModelMessage>();

/**
 * Places the breakpoints toAnthropicRequest places (packages/projections), in the lists given (their
 * entries replaced by marked copies; the messages themselves are left alone): the last instruction, the
 * message the view's last summary became, the last two messages. A breakpoint a message already has (the
 * user's, on a stored message) stays as it is, and counts: so do the `kept` ones outside these lists.
 * Never more than four in all; when fewer are left, the last message comes first, then the system
 * prompt, the summary, the message before the last.
 */
export function placeBreakpoints(
  request: { instructions: SystemModelMessage[]; messages: ModelMessage[] },
  summary: ModelMessage | undefined,
  control: AnthropicCacheControl,
  kept = 0,
): void {
  const { instructions, messages } = request;
  let left = MAX_BREAKPOINTS - kept - [...instructions, ...messages].reduce((n, m) => n + breakpointsOf(m), 0);
  const summaryAt = summary === undefined ? -1 : messages.indexOf(summary);
  const targets: [ModelMessage[], number][] = [
    [messages, messages.length - 1],
    [instructions, instructions.length - 1],
    [messages, summaryAt],
    [messages, messages.length - 2],
  ];
  for (const [list, at] of targets) {
    const message = list[at];
    if (message === undefined || endsOnBreakpoint(message) || left <= 0) continue;
    const copy = marked(message, control);
    list[at] = copy;
    if (list === messages && at !== summaryAt) movable.set(copy, message);
    left--;
  }
}

/**
 * A step's messages with the marks an earlier load or step put on its last messages moved to this
 * step's last two (what the step before it wrote to the cache is read back through them); the system
 * prompt's and the summary's stay. `instructions` are the step's (their breakpoints count).
 */
export function moveBreakpoints(
  messages: readonly ModelMessage[],
  instructions: unknown,
  control: AnthropicCacheControl,
): ModelMessage[] {
  const request = { instructions: [], messages: messages.map((m) => movable.get(m) ?? m) };
  placeBreakpoints(request, undefined, control, instructionBreakpoints(instructions));
  return request.messages;
}

/** The breakpoints of the AI SDK's `instructions` (a string carries none). */
function instructionBreakpoints(instructions: unknown): number {
  const list = Array.isArray(instructions) ? instructions : [instructions];
  return list.filter((m) => typeof m === "object" && m !== null && hasControl(m.providerOptions)).length;
}

/**
 * The breakpoints `@ai-sdk/anthropic` sends for a message: one per part that has one, and the message's
 * own on its last part when that part has none.
 */
function breakpointsOf(message: ModelMessage): number {
  const own = hasControl(message.providerOptions) ? 1 : 0;
  if (typeof message.content === "string") return own;
  const parts = message.content.filter((part) => hasControl(optionsOf(part))).length;
  return parts + (own === 1 && message.content.length > 0 && !hasControl(optionsOf(message.content.at(-1))) ? 1 : 0);
}

/** The message ends on a breakpoint already: its own, or its last part's. */
function endsOnBreakpoint(message: ModelMessage): boolean {
  if (hasControl(message.providerOptions)) return true;
  return typeof message.content !== "string" && hasControl(optionsOf(message.content.at(-1)));
}

function optionsOf(part: unknown): ProviderOptions | undefined {
  return (part as { providerOptions?: ProviderOptions } | undefined)?.providerOptions;
}

/** `@ai-sdk/anthropic` takes a breakpoint from `cacheControl` or `cache_control` (the first set). */
function hasControl(options: ProviderOptions | undefined): boolean {
  const anthropic = options?.anthropic;
  return Boolean(anthropic?.cacheControl ?? anthropic?.cache_control);
}

/** A copy of the message with the breakpoint among its provider options, every other option kept. */
function marked<M extends ModelMessage>(message: M, control: AnthropicCacheControl): M {
  const options = message.providerOptions;
  return {
    ...message,
    providerOptions: { ...options, anthropic: { ...options?.anthropic, cacheControl: { ...control } } },
  };
}
