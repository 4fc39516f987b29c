import { createHash, randomUUID } from "node:crypto";
import {
  checkOptions,
  definedFields,
  type Message,
  type OptionShape,
  OptionValues,
  StorageError,
  type Usage,
  ValidationError,
} from "@palimpsest/core";
import {
  type CompactionSettings,
  type CompactOutcome,
  compact,
  type ForkOptions,
  type Palimpsest,
  type RecallTool,
  type RecallToolOptions,
  recallTools,
  type Session,
} from "@palimpsest/runtime";
import type { LanguageModelUsage, ModelMessage, Tool, UIMessage } from "ai";
import type { AiModule } from "./ai-module.ts";
import { type AnthropicCacheControl, moveBreakpoints } from "./anthropic-cache.ts";
import { type CheckedMessage, checkModelMessages } from "./check-messages.ts";
import { type LoadedConversation, loadMessages } from "./load-messages.ts";
import { projectMessage, type SaveStep } from "./project-message.ts";
import { recordApprovals } from "./record-approvals.ts";
import { aiSdkMetadata } from "./stored-metadata.ts";
import { staleCopies, type UIConversion, unsavedOf } from "./ui-dedup.ts";
import { incompleteReason, streamingPart, type UIMessageStreamEnd, uiMessagesOfLog } from "./ui-messages.ts";
import { encodeValue } from "./value-codec.ts";

/**
 * What saveResponse takes: generateText's result, the `onFinish` event of generateText or streamText, or
 * streamText's result (whose fields are promises: they are awaited).
 */
export interface ResponseEvent {
  /** Every step's messages (not the deprecated `response.messages`, which holds the final step only). */
  responseMessages: readonly ModelMessage[] | PromiseLike<readonly ModelMessage[]>;
  /**
   * The final step's usage is recorded with the turn (the size of the last request). Each step's
   * `response.id` (the provider's, or one the AI SDK made up) tells, with the messages, a response saved
   * already.
   */
  steps?:
    | readonly { usage: LanguageModelUsage; response?: { id?: string } }[]
    | PromiseLike<readonly { usage: LanguageModelUsage; response?: { id?: string } }[]>;
  usage?: LanguageModelUsage | PromiseLike<LanguageModelUsage>;
}

/** Options of Conversation.compact (its settings are the conversation's `compaction`). */
export interface ConversationCompactOptions {
  /** Compact even below the threshold (or while backing off). */
  force?: boolean;
  /** How the compaction is recorded (default `manual`). */
  trigger?: "manual" | "auto";
}

/** Every key of ConversationCompactOptions with its value's schema (checkOptions). */
const COMPACT_OPTION_SHAPE: OptionShape<ConversationCompactOptions> = {
  force: OptionValues.flag,
  trigger: OptionValues.oneOf("manual", "auto"),
};

/** What a saved UI stream outcome did: stored, or passed over (cancelled, aborted, still streaming). */
export type UISaveOutcome = { saved: true } | { saved: false; reason: string };

/** What uiMessageStreamOptions returns: options of `toUIMessageStream` and of `createUIMessageStream`. */
export interface ConversationStreamOptions {
  originalMessages: UIMessage[];
  /** The response message's id (toUIMessageStream's option). */
  generateMessageId: () => string;
  /** The same, under createUIMessageStream's name. */
  generateId: () => string;
  onFinish: (event: UIMessageStreamEnd) => Promise<void>;
}

/** What a Conversation needs from openConversation. */
export interface ConversationContext {
  ai: AiModule;
  runtime: Palimpsest;
  session: Session;
  compaction: CompactionSettings;
  /** Close the runtime with the conversation (it was opened for it). */
  ownsRuntime: boolean;
  /** The prompt-cache breakpoints load() and prepareStep place (openConversation's `anthropicCache`). */
  anthropicCache?: AnthropicCacheControl | undefined;
}

/**
 * One AI SDK conversation on a Palimpsest session: what a route handler loads before `generateText` /
 * `streamText` and saves after. See docs/ai-sdk.md.
 */
export class Conversation {
  /** The Palimpsest session id: pass it back as `sessionId` to continue the conversation in any process. */
  readonly sessionId: string;
  readonly #ctx: ConversationContext;
  /** The turn the current request's messages are appended under, from the first save to saveResponse. */
  #turnId: string | undefined;
  /** How many of this turn's response messages prepareStep has saved already. */
  #savedResponses = 0;
  /**
   * The responses saveResponse stored or is storing since the last user message, oldest first, at most
   * RECENT_RESPONSES: a response saved twice is saved back to back (onFinish, then the result), so a few
   * are enough, and a handle a server keeps open does not grow with every response.
   */
  readonly #recentResponses: RecentResponse[] = [];
  /** Saves started on this handle and not settled yet (each settles without rejecting; see saved()). */
  readonly #inFlight = new Set<Promise<void>>();
  /**
   * The first save nobody awaits (started in an AI SDK callback) that failed since the last saved() call
   * (only it is reported, so only it is kept).
   */
  #failure: { error: unknown } | undefined;
  /** close() was called: every later call is refused (closedError), whether or not the runtime is still open. */
  #closed = false;

  /** Wraps an open session; use openConversation. */
  constructor(ctx: ConversationContext) {
    this.#ctx = ctx;
    this.sessionId = ctx.session.id;
  }

  /** The underlying Palimpsest session (views, history, expand, audit). */
  get session(): Session {
    return this.#ctx.session;
  }

  /**
   * The `recall` and `expand` tools over this conversation (docs/recall.md), for the model whose history
   * was compacted to get back what it lost: `generateText({ model, tools: { ...yours,
   * ...conversation.recallTools() }, ...(await conversation.load()) })`. Answers fit `maxTokens`; a refused
   * call (a query without words, an unknown compaction) is the tool's error, which the model is shown.
   */
  recallTools(options: RecallToolOptions = {}): { recall: Tool; expand: Tool } {
    const [recall, expand] = recallTools(async () => {
      this.#open();
      return this.#ctx.session;
    }, options);
    const asTool = (tool: RecallTool): Tool => ({
      description: tool.description,
      inputSchema: tool.schema,
      execute: (input: unknown) => tool.call(input),
    });
    return { recall: asTool(recall), expand: asTool(expand) };
  }

  /**
   * The conversation as the AI SDK takes it, read fresh from the log (another process may have written):
   * `generateText({ model, instructions, messages })`. Compacted history is what the model gets. With
   * `anthropicCache`, the last instruction, the view's last summary and the last two messages carry
   * prompt-cache breakpoints (docs/ai-sdk.md).
   */
  async load(): Promise<LoadedConversation> {
    this.#open();
    await this.#ctx.session.refresh();
    return this.#loaded();
  }

  /**
   * Saves messages the caller adds (the user's input, a tool approval response, client tool results), in
   * one append. A user message starts a new turn. ValidationError for a value that is not a ModelMessage,
   * INVARIANT_VIOLATED for one the log refuses (a tool result for a call that is not live): nothing is
   * stored then.
   */
  save(messages: readonly ModelMessage[]): Promise<void> {
    return this.#track(async () => {
      const checked = checkModelMessages(this.#ctx.ai, messages, "messages");
      if (checked.some(({ message }) => message.role === "user")) this.#newUserTurn();
      await this.#write(checked);
    });
  }

  /**
   * Saves a response: `responseMessages` of generateText's result, of the onFinish event of generateText
   * / streamText, or of streamText's result (awaited: it resolves when the stream has finished, and
   * rejects with its error), every step's messages (what prepareStep already saved is skipped). Then
   * completes the turn with the final step's usage, and compacts when the view is over its threshold (the
   * runtime's automatic compaction, when it is on). A response saved already (or being saved) since the
   * last user message, known by its steps' response ids and its messages, is not stored again: the second
   * save writes nothing and resolves once the first stored it (onFinish and the result may both save it).
   */
  saveResponse(event: ResponseEvent): Promise<void> {
    return this.#track(() => this.#saveResponse(event));
  }

  /**
   * An `onFinish` for generateText / streamText: saves the response (saveResponse) and resolves even when
   * the save fails, whose error the next saved() rejects with (the AI SDK swallows what `onFinish` throws).
   */
  readonly onFinish = async (event: ResponseEvent): Promise<void> => {
    await this.#track(() => this.#saveResponse(event), true).catch(() => {});
  };

  /**
   * Saves complete UI messages the caller adds (the user's message from `useChat`; an assistant message
   * that gained a client tool's output or an approval), converted with the AI SDK's
   * `convertToModelMessages`. What a message id already stored is not stored again (ui-dedup.ts), so
   * sending a message again, or a grown one, saves only what is new. ValidationError for a message with
   * a part still streaming.
   */
  saveUIMessages(messages: readonly UIMessage[]): Promise<void> {
    return this.#track(async () => {
      const converted: UIConversion[] = [];
      for (const message of messages) {
        const streaming = streamingPart(message);
        if (streaming !== undefined) throw new ValidationError(`cannot save: ${streaming}`, [streaming]);
        converted.push(await this.#fromUI(message));
      }
      const unsaved = (view: readonly Message[]) => converted.flatMap((items) => unsavedOf(items, view));
      await this.#ctx.session.refresh();
      if (unsaved(this.#view()).some(({ message }) => message.role === "user")) this.#newUserTurn();
      await this.#write(unsaved, undefined, converted);
    });
  }

  /**
   * Saves the response of a UI message stream, only when it is complete: a cancelled, aborted or
   * unfinished stream (the AI SDK calls onFinish with the partial message then) stores nothing and says
   * why. A response that continues the last message saves only its new part. Completes the turn.
   */
  saveUIResponse(event: UIMessageStreamEnd): Promise<UISaveOutcome> {
    return this.#track(() => this.#saveUIResponse(event));
  }

  /**
   * Options for `result.toUIMessageStream(...)` (or `createUIMessageStream`): `originalMessages`, a
   * response message id made here (`generateMessageId`, and `generateId` as createUIMessageStream calls
   * it), so the page and the store know the response by the same id, and an `onFinish` that saves the
   * response when it is complete (saveUIResponse). `onSaved` hears each outcome, a failed save too
   * (`{ saved: false, reason: "save failed" }`; the next saved() rejects with its error), and is awaited:
   * close the conversation there.
   */
  uiMessageStreamOptions(
    originalMessages: readonly UIMessage[],
    onSaved?: (outcome: UISaveOutcome) => void | Promise<void>,
  ): ConversationStreamOptions {
    return {
      originalMessages: [...originalMessages],
      generateMessageId: randomUUID,
      generateId: randomUUID,
      onFinish: async (event) => {
        const outcome = await this.#track(() => this.#saveUIResponse(event), true).catch(
          (): UISaveOutcome => ({ saved: false, reason: "save failed" }),
        );
        await onSaved?.(outcome);
      },
    };
  }

  /**
   * The UI messages saved in this conversation (saveUIMessages, saveUIResponse), read fresh from the log,
   * each as it was last saved: its id, metadata and every part (data parts, step-start, sources, files
   * included), in the order they were first saved; for `useChat({ messages })` when the page reloads.
   * Messages a compaction has since summarized for the model are still here (a chat page shows what was
   * said); messages saved as ModelMessages (save, saveResponse) have no UI form and are not.
   */
  async loadUIMessages(): Promise<UIMessage[]> {
    this.#open();
    return uiMessagesOfLog(await this.#ctx.runtime.store.readStream(this.sessionId));
  }

  /**
   * A `prepareStep` for generateText / streamText that compacts inside a multi-step loop: from the second
   * step on, it saves the steps so far and, when the view is over its threshold, compacts and hands the
   * model the compacted view (`messages`, which carry forward to later steps). saveResponse then saves only
   * the rest. With `anthropicCache`, the compacted view carries the breakpoints load() places, and every
   * other step gets its `messages` back with the breakpoints of the last two messages moved to its own
   * last two (the system prompt's and the summary's stay).
   */
  readonly prepareStep = (options: {
    stepNumber: number;
    responseMessages: readonly ModelMessage[];
    /** The step's messages (the AI SDK passes them): where anthropicCache moves the last breakpoints. */
    messages?: readonly ModelMessage[];
    /** The step's instructions (their breakpoints count towards the four). */
    instructions?: unknown;
  }): Promise<{ messages?: ModelMessage[] }> =>
    this.#track(async () => {
      if (options.stepNumber > 0) {
        const fresh = options.responseMessages.slice(this.#savedResponses);
        if (fresh.length > 0) {
          await this.#write(checkModelMessages(this.#ctx.ai, fresh, "responseMessages"), this.#currentTurn());
          this.#savedResponses = options.responseMessages.length;
        }
        const outcome = await compact(this.#ctx.session, { ...this.#ctx.compaction, trigger: "auto" });
        if (outcome.status === "compacted") return { messages: this.#loaded().messages };
      }
      const control = this.#ctx.anthropicCache;
      if (control === undefined || options.messages === undefined) return {};
      return { messages: moveBreakpoints(options.messages, options.instructions, control) };
    }, true);

  /**
   * Runs the compaction policy once (the conversation's `compaction` settings): a summary or prune of the
   * middle when the view is over its threshold, or always with `force`. Another writer compacting first is
   * not an error: the policy plans again on the view it left, and the outcome is usually `skipped`.
   */
  compact(options: ConversationCompactOptions = {}): Promise<CompactOutcome> {
    return this.#track(async () => {
      checkOptions("compact", options, COMPACT_OPTION_SHAPE);
      return compact(this.#ctx.session, { ...this.#ctx.compaction, ...options });
    });
  }

  /**
   * Resolves once every save started on this handle so far (save, saveResponse, the UI saves, prepareStep,
   * compact, onFinish) is stored; rejects with the error of the first save nobody awaits that failed since
   * the last call: one the AI SDK started (onFinish, uiMessageStreamOptions' onFinish, prepareStep). A save
   * whose promise the caller got (save, saveResponse, ...) reports its error there alone. Await it before
   * a script or serverless handler returns: streamText resolves `text` before the save its `onFinish`
   * started is done, and the AI SDK swallows what `onFinish` throws.
   */
  async saved(): Promise<void> {
    await Promise.all(this.#inFlight);
    const failure = this.#failure;
    this.#failure = undefined;
    if (failure !== undefined) throw failure.error;
  }

  /**
   * A new conversation holding this one's view as it stood at a point (Palimpsest.fork): after the log's
   * event `atSeq`, or after `atTurn` turns (before the (N+1)-th user message; 0: empty); neither, the
   * whole log. Lineage `fork` at that seq. Writes to either never show in the other. It shares this
   * conversation's store: close this one last.
   */
  async fork(at: ForkOptions = {}): Promise<Conversation> {
    this.#open();
    const session = await this.#ctx.runtime.fork(this.sessionId, at);
    return new Conversation({ ...this.#ctx, session, ownsRuntime: false });
  }

  /**
   * Waits for the saves in flight (saved(), without rejecting: their errors reach their callers, or the
   * next saved() for those the AI SDK started), then closes the store when openConversation opened it (not a runtime passed in, nor a
   * fork's).
   */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#inFlight);
    if (this.#ctx.ownsRuntime) await this.#ctx.runtime.close();
  }

  /**
   * Runs a save now, counted in flight until it settles. The failure of a save nobody awaits (`unawaited`:
   * the AI SDK started it, and swallows its error) is kept for saved(); any other reaches its caller alone.
   */
  #track<T>(save: () => Promise<T>, unawaited = false): Promise<T> {
    const running = this.#closed ? Promise.reject(closedError()) : save();
    const settled = running.then(
      () => {
        this.#inFlight.delete(settled);
      },
      (error: unknown) => {
        this.#inFlight.delete(settled);
        if (unawaited) this.#failure ??= { error };
      },
    );
    this.#inFlight.add(settled);
    return running;
  }

  /** Refuses a call after close() (closedError). */
  #open(): void {
    if (this.#closed) throw closedError();
  }

  /** The session's view as the AI SDK takes it, with the breakpoints anthropicCache asks for. */
  #loaded(): LoadedConversation {
    const view = this.#ctx.session.view();
    const control = this.#ctx.anthropicCache;
    return loadMessages(view.messages, control === undefined ? undefined : { control, summaryId: view.lastSummaryId });
  }

  /**
   * saveResponse's save. A response an earlier save since the last user message holds (the same step
   * response ids and the same messages: a provider may reuse an id, a test server may answer every request
   * with one) is awaited there and not written again; when that save failed (and was forgotten), this one
   * stores the response. It is remembered before anything is written, with no await between the check and
   * the mark, so of two saves of one response running at once (onFinish and the result) only one writes;
   * a failed save forgets it, so saving the same response again retries it.
   */
  async #saveResponse(event: ResponseEvent): Promise<void> {
    const [messages, steps] = await Promise.all([event.responseMessages, event.steps]);
    const checked = checkModelMessages(this.#ctx.ai, messages, "responseMessages");
    const ids = new Set(steps?.flatMap((step) => (step.response?.id ? [step.response.id] : [])));
    const digest = createHash("sha256")
      .update(JSON.stringify(checked.map((item) => item.encoded)))
      .digest("base64");
    const same = (recent: RecentResponse) => recent.digest === digest && [...ids].every((id) => recent.ids.has(id));
    let earlier = ids.size > 0 ? this.#recentResponses.find(same) : undefined;
    while (earlier !== undefined) {
      if (await earlier.stored) return;
      earlier = this.#recentResponses.find(same);
    }
    let settle: (stored: boolean) => void = () => {};
    const recent: RecentResponse = { ids, digest, stored: new Promise((resolve) => (settle = resolve)) };
    if (ids.size > 0) {
      this.#recentResponses.push(recent);
      if (this.#recentResponses.length > RECENT_RESPONSES) this.#recentResponses.shift();
    }
    try {
      const usage = steps?.at(-1)?.usage ?? (await event.usage);
      await this.#finishTurn(checked.slice(this.#savedResponses), usage === undefined ? undefined : toUsage(usage));
      settle(true);
    } catch (error) {
      const at = this.#recentResponses.indexOf(recent);
      if (at >= 0) this.#recentResponses.splice(at, 1);
      settle(false);
      throw error;
    }
  }

  /** saveUIResponse's save. */
  async #saveUIResponse(event: UIMessageStreamEnd): Promise<UISaveOutcome> {
    const reason = incompleteReason(event);
    if (reason !== undefined) return { saved: false, reason };
    const conversion = await this.#fromUI(event.responseMessage);
    await this.#finishTurn((view) => unsavedOf(conversion, view), undefined, [conversion]);
    return { saved: true };
  }

  /**
   * A UI message checked with the AI SDK's `validateUIMessages` (ValidationError naming the message when
   * it refuses it), converted to checked ModelMessages tagged with its id (see unsavedOf), with the
   * message itself tag-encoded; one the server named nothing is new by definition, and is tagged with a
   * fresh id (its stored copy too), so a save never stores it twice.
   */
  async #fromUI(message: UIMessage): Promise<UIConversion> {
    const what = `UI message ${message.id}`;
    const valid = await this.#ctx.ai.safeValidateUIMessages({ messages: [message] });
    if (!valid.success) {
      throw new ValidationError(`${what} is not a UIMessage: ${valid.error.message}`, [what], {
        cause: valid.error,
        path: what,
      });
    }
    const converted = await this.#ctx.ai.convertToModelMessages([message]);
    const ui = message.id === "" ? `unnamed:${randomUUID()}` : message.id;
    const items = checkModelMessages(this.#ctx.ai, converted, what).map((item) => ({ ...item, ui }));
    return { ui, items, snapshot: encodeValue({ ...message, id: ui }, what) };
  }

  /**
   * Appends a response under the current turn and completes the turn in the same write (one transaction),
   * then starts the next one afresh. A response that appends nothing (approval responses alone) completes
   * the turn apart, when an earlier save named it.
   */
  async #finishTurn(
    source: readonly CheckedMessage[] | Unsaved,
    usage: Usage | undefined,
    resent: readonly UIConversion[] = [],
  ) {
    const turnId = this.#currentTurn();
    const completed = await this.#write(source, turnId, resent, usage ?? true);
    this.#turnId = undefined;
    this.#savedResponses = 0;
    if (!completed) await this.#ctx.session.completeTurnIfNamed(turnId, usage);
  }

  /**
   * A user message starts a new turn, and the responses saved before it are forgotten: what the model
   * answers next is a new response, even from a provider that reuses ids with the same words.
   */
  #newUserTurn(): void {
    this.#newTurn();
    this.#recentResponses.length = 0;
  }

  #newTurn(): string {
    this.#turnId = randomUUID();
    this.#savedResponses = 0;
    return this.#turnId;
  }

  #currentTurn(): string {
    return this.#turnId ?? this.#newTurn();
  }

  /** The live messages of the session as this handle last read them. */
  #view(): Message[] {
    return this.#ctx.session.state.live.map((e) => e.message);
  }

  /**
   * Stores a save in one write, planned on the session's current state (another writer's commit first
   * makes it planned again, so a conflict never reaches the caller, and the save is never half stored):
   * its messages in one append, and each approval response recorded on the assistant message that asked
   * by a rewrite before it (record-approvals.ts). `source` is the messages, or (UI messages) what the view
   * a write is planned on does not hold yet, so two processes saving the same UI message store it once.
   * Every approval is checked against the view and the rest of the save first. A UI message of `resent`
   * that brings nothing new for the model but differs from its stored copy (metadata, data parts) has
   * that copy replaced (ui-dedup.ts, staleCopies). With `completeTurn`, the append completes its turn in
   * the same write; true when the write completed it.
   */
  async #write(
    source: readonly CheckedMessage[] | Unsaved,
    turnId?: string,
    resent: readonly UIConversion[] = [],
    completeTurn?: true | Usage,
  ): Promise<boolean> {
    const turn = turnId ?? this.#currentTurn();
    const fixed =
      typeof source === "function" ? undefined : source.flatMap((item) => projectMessage(item, randomUUID()));
    const events = await this.#ctx.session.write((state) => {
      const view = state.live.map((e) => e.message);
      const steps = fixed ?? (source as Unsaved)(view).flatMap((item) => projectMessage(item, randomUUID()));
      checkApprovals(view, steps);
      const recorded = recordApprovals(state, steps);
      const { messages } = recorded;
      const rewrites = [...recorded.rewrites, ...staleCopies(resent, state, recorded.rewrites.length)];
      const append = { kind: "append" as const, messages, turnId: turn, ...definedFields({ completeTurn }) };
      if (rewrites.length === 0) return messages.length === 0 ? undefined : append;
      return { kind: "batch", writes: messages.length === 0 ? rewrites : [...rewrites, append] };
    });
    return events.some((e) => e.type === "turn.completed");
  }
}

/** How many responses a conversation remembers to tell a response saved twice (#recentResponses). */
const RECENT_RESPONSES = 8;

/**
 * A response saveResponse stored or is storing: its steps' response ids, a digest of its messages (their
 * stored form), and whether the save stored it.
 */
interface RecentResponse {
  readonly ids: ReadonlySet<string>;
  readonly digest: string;
  /** Resolves true once stored, false when the save failed (it is forgotten then). */
  readonly stored: Promise<boolean>;
}

/** What a save still has to store, given the view a write is planned on. */
type Unsaved = (view: readonly Message[]) => readonly CheckedMessage[];

/** ValidationError before anything is written when an approval response answers no request in the view or the save. */
function checkApprovals(view: readonly Message[], steps: readonly SaveStep[]): void {
  const asked = new Set<string>();
  const collect = (source: unknown) => {
    const content = (source as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) return;
    for (const part of content) if (part?.type === "tool-approval-request") asked.add(String(part.approvalId));
  };
  for (const message of view) collect(aiSdkMetadata(message)?.message);
  for (const step of steps) {
    if (step.kind === "append") collect(aiSdkMetadata(step.message)?.message);
    else {
      const unknown = step.approvalIds.filter((id) => !asked.has(id));
      if (unknown.length > 0) {
        throw new ValidationError(
          `tool approval responses for approvals nobody asked for: ${unknown.join(", ")}`,
          unknown.map((id) => `approvalId ${id}: no tool-approval-request in the conversation`),
          { path: "approvalId" },
        );
      }
    }
  }
}

/** The AI SDK's usage as Palimpsest records it with a turn. */
function toUsage(usage: LanguageModelUsage): Usage {
  const out: Usage = {};
  if (usage.inputTokens !== undefined) out.promptTokens = usage.inputTokens;
  if (usage.outputTokens !== undefined) out.completionTokens = usage.outputTokens;
  const { cacheReadTokens, cacheWriteTokens } = usage.inputTokenDetails ?? {};
  if (cacheReadTokens !== undefined) out.cacheReadTokens = cacheReadTokens;
  if (cacheWriteTokens !== undefined) out.cacheWriteTokens = cacheWriteTokens;
  return out;
}

/** A call on a conversation after its close(): STORAGE, as a closed store's, whatever became of its store. */
function closedError(): StorageError {
  return new StorageError("conversation", "this conversation is closed: open another with openConversation");
}
