import { randomUUID } from "node:crypto";
import type {
  Agent,
  AgentInputItem,
  OpenAIResponsesCompactionArgs,
  OpenAIResponsesCompactionAwareSession,
  OpenAIResponsesCompactionResult,
  RequestUsage,
  RunContext,
  RunContextAwareSession,
  RunState,
  SessionHistoryRewriteArgs,
  SessionHistoryRewriteAwareSession,
  SessionHistoryTransactionArgs,
  SessionHistoryTransactionAwareSession,
  Tool,
  tool,
} from "@openai/agents-core";
import {
  callsAnsweredIn,
  checkId,
  definedFields,
  foldEvents,
  IdempotencyMismatch,
  initialState,
  keysOfEvents,
  type SessionState,
  StorageError,
  type Usage,
  ValidationError,
} from "@palimpsest/core";
import {
  type CompactionSettings,
  compact,
  type Palimpsest,
  type RecallTool,
  type RecallToolOptions,
  recallTools,
  refusalText,
  type Session,
} from "@palimpsest/runtime";
import { callIdOf, itemRole, storedItems } from "./agent-item.ts";
import { type FunctionCallMutation, mutateItems } from "./history-mutations.ts";
import {
  checkSuffix,
  type HistoryWrite,
  planAppend,
  planClear,
  planCompactionImport,
  planMutation,
  planPop,
  planReplaceSuffix,
} from "./history-plan.ts";
import {
  type InterruptedState,
  interruptedRunOf,
  pendingRun,
  planKeepRun,
  type SaveInterruptedRunOptions,
} from "./interrupted-run.ts";
import { checkItems, type ItemSchema } from "./item-check.ts";
import { itemsOfMessages } from "./item-rendering.ts";

/** What the adapter uses of the SDK at run time (loaded on first use: it is an optional peer dependency). */
export interface AgentsSdk {
  /** `protocol.ModelItem`: every item written is checked against it. */
  itemSchema: ItemSchema;
  /**
   * The SDK's RequestUsage class, for the usage of a summary `runCompaction` returns (`inputTokensDetails`:
   * the prompt cache's reads, `cached_tokens`, and writes, `cache_write_tokens`, when recorded).
   */
  RequestUsage: new (input: {
    inputTokens: number;
    outputTokens: number;
    totalTokens: number;
    inputTokensDetails?: Record<string, number>;
  }) => RequestUsage;
  /** The SDK's RunState class, to rebuild a kept interrupted run for an agent. */
  RunState: Pick<typeof RunState, "fromString" | "fromStringWithContext">;
  /** The SDK's RunContext class, to wrap a context given to interruptedRun. */
  RunContext: typeof RunContext;
  /** The SDK's `tool`, to make the recall tools function tools. */
  tool: typeof tool;
}

/** Everything a PalimpsestAgentsSession is built from (see openAgentsSession). */
export interface AgentsSessionParts {
  runtime: Palimpsest;
  session: Session;
  sdk: AgentsSdk;
  /** How `runCompaction` compacts (policy, profile, summarizer, window). */
  compaction: CompactionSettings;
  /**
   * Set when the runtime was opened for this session: how many open sessions (it and its forks) hold
   * it; the last of them to close closes it. Undefined for a runtime the caller shares.
   */
  holders: { open: number } | undefined;
}

/**
 * Where a fork starts: after the parent's event `atSeq`, or before its (N+1)-th user message (`atTurn:
 * N`); `toSessionId` names the fork (forking again to it returns the same fork).
 */
export type ForkPoint = ({ atSeq: number } | { atTurn: number }) & { toSessionId?: string };

/**
 * An OpenAI Agents SDK `Session` on a Palimpsest session: `run(agent, input, { session })`. Items are
 * kept verbatim in the messages' metadata; every write goes through the decider, so a stored history is
 * always a valid model input (calls with their results, nothing twice). `popItem` and `clearSession`
 * retract (the log keeps the originals), `runCompaction` completes the turn and compacts with the
 * session's policy when the view is over its threshold, and `fork` branches the history.
 */
export class PalimpsestAgentsSession
  implements
    RunContextAwareSession,
    SessionHistoryTransactionAwareSession,
    SessionHistoryRewriteAwareSession,
    OpenAIResponsesCompactionAwareSession
{
  /** The Runner passes its RunContext to every call: `runCompaction` reads the turn's usage from it. */
  readonly acceptsRunContext = true as const;
  /** The Palimpsest session behind it (view, history, expand, audit). */
  readonly session: Session;
  /** The runtime it runs on (share it with other sessions: `openAgentsSession({ runtime })`). */
  readonly runtime: Palimpsest;
  readonly #parts: AgentsSessionParts;
  #turnId: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  /** Wraps a Palimpsest session; use openAgentsSession to get one. */
  constructor(parts: AgentsSessionParts) {
    this.#parts = parts;
    this.session = parts.session;
    this.runtime = parts.runtime;
  }

  /**
   * The `recall` and `expand` tools over this session (docs/recall.md) as function tools, for the agent
   * whose history was compacted to get back what it lost: `new Agent({ tools: [...yours,
   * ...session.recallTools()] })`. Answers fit `maxTokens`; a refused call (a query without words, an
   * unknown compaction, an argument it does not take) reaches the model as its code and message.
   */
  recallTools(options: RecallToolOptions = {}): Tool[] {
    return recallTools(async () => this.session, options).map((recallTool: RecallTool) =>
      this.#parts.sdk.tool({
        name: recallTool.name,
        description: recallTool.description,
        // The SDK's types take a non-strict schema only with additionalProperties: true; the tool refuses an
        // argument it does not take by name all the same.
        parameters: { ...recallTool.jsonSchema, additionalProperties: true as const },
        strict: false,
        execute: (input: unknown) => recallTool.call(input),
        // The SDK's default shows the model a fixed "An error occurred": a refusal's own words say what to fix.
        errorFunction: (_context, error) =>
          refusalText(error) ?? "An error occurred while running the tool. Please try again.",
      }),
    );
  }

  /** The Palimpsest session id. */
  async getSessionId(): Promise<string> {
    return this.session.id;
  }

  /** The active view as items (with `limit`, its newest `limit` items, oldest first; `[]` for `limit <= 0`). */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    return this.#serial(async () => {
      this.#open();
      await this.session.refresh();
      const items = itemsOfMessages(this.session.view().messages);
      if (limit === undefined) return items;
      // As MemorySession counts: a fractional limit rounds the start down, NaN is everything.
      return limit <= 0 ? [] : items.slice(Math.max(items.length - limit, 0));
    });
  }

  /**
   * Appends items: grouped into messages so calls stand with their results; a run of calls waiting for
   * results that the batch continues is joined with it, and one it abandons (new input instead of the
   * results: a dropped approval) is withdrawn unanswered first, its items kept. VALIDATION for an item
   * the SDK would not produce; INVARIANT_VIOLATED (`tool-result-without-live-call`, ...) for a result
   * without a waiting call; nothing is written then.
   */
  async addItems(items: AgentInputItem[]): Promise<void> {
    const checked = checkItems(this.#parts.sdk.itemSchema, items, "items");
    await this.#write((state, answered) => planAppend(state, answered, checked, { turnId: this.#turn() }), checked);
  }

  /** Removes the newest item and returns it: a retraction, so `expand` still shows it. */
  async popItem(): Promise<AgentInputItem | undefined> {
    let popped: AgentInputItem | undefined;
    await this.#write((state, answered) => {
      const plan = planPop(state, answered);
      popped = plan.item;
      return plan.write;
    });
    return popped;
  }

  /** Withdraws every item from the view: one retraction (never a deletion; the log and audit keep them). */
  async clearSession(): Promise<void> {
    await this.#write((state) => planClear(state));
    this.#turnId = undefined;
  }

  /**
   * Replaces the history with a provider compaction item and the suffix it keeps, recorded as an
   * imported compaction (the superseded messages stay one `expand` away). A no-op when the history is
   * already exactly `items`.
   */
  async replaceHistoryWithCompaction(items: AgentInputItem[]): Promise<void> {
    const checked = checkItems(this.#parts.sdk.itemSchema, items, "items");
    await this.#write((state) => planCompactionImport(state, checked));
  }

  /**
   * Applies a history transaction atomically, idempotent by `operationId` (the write's idempotency key):
   * repeated with the same body it changes nothing; with another body it is IDEMPOTENCY_MISMATCH and
   * changes nothing. `replace_suffix` is VALIDATION when the history does not end with `expectedSuffix`.
   */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs, _runContext?: RunContext): Promise<void> {
    const operationId = checkId(args?.operationId, "operationId", "idempotencyKey");
    const transaction = args.transaction;
    const body =
      transaction?.type === "append_items"
        ? {
            type: "append" as const,
            items: checkItems(this.#parts.sdk.itemSchema, transaction.items, "transaction.items"),
          }
        : transaction?.type === "replace_suffix"
          ? {
              type: "replace" as const,
              expected: checkItems(
                this.#parts.sdk.itemSchema,
                transaction.expectedSuffix,
                "transaction.expectedSuffix",
              ),
              items: checkItems(this.#parts.sdk.itemSchema, transaction.replacement, "transaction.replacement"),
            }
          : undefined;
    if (body === undefined) {
      throw new ValidationError("unknown history transaction", [`transaction.type: ${String(transaction?.type)}`], {
        path: "transaction.type",
      });
    }
    // No turn id: a retry from another process (a resumed RunState) must be the identical write.
    const options = { idempotencyKey: operationId };
    await this.#write(async (current, answeredNow) => {
      // A retry is decided on the log before its key (as the store replays it), not on the current one.
      const before = await this.#stateBefore(operationId);
      const state = before?.state ?? current;
      const answered = before?.answered ?? answeredNow;
      try {
        if (body.type === "replace") checkSuffix(state, body.expected);
        return body.type === "append"
          ? planAppend(state, answered, body.items, options)
          : planReplaceSuffix(state, answered, body.expected.length, body.items, options);
      } catch (error) {
        if (before !== undefined) throw new IdempotencyMismatch(this.session.id, operationId);
        throw error;
      }
    });
  }

  /**
   * Applies `replace_function_call` mutations (approval argument overrides): as in 0.20, the first
   * `function_call` with the call id becomes the replacement and later ones are dropped; with an
   * `expected` item, only the latest call equal to it is replaced, and none is VALIDATION. One retraction.
   */
  async applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void> {
    const mutations: FunctionCallMutation[] = (args?.mutations ?? []).map((m, i) => ({
      ...m,
      replacement: checkItems(
        this.#parts.sdk.itemSchema,
        [m.replacement],
        `mutations[${i}].replacement`,
      )[0] as AgentInputItem,
      ...("expected" in m && m.expected !== undefined
        ? { expected: checkItems(this.#parts.sdk.itemSchema, [m.expected], `mutations[${i}].expected`)[0] }
        : {}),
    }));
    await this.#write((state, answered) => {
      const change = mutateItems(state, mutations);
      return change === undefined ? undefined : planMutation(state, answered, change);
    });
  }

  /**
   * The Runner's hook after each persisted turn: completes the turn (with the model's usage from the
   * run context, when it reported any), then runs the session's compaction policy, which compacts only
   * when the view is over its threshold (or `force`). Returns the summarizer's usage when a summary was
   * written (its prompt-cache reads in `inputTokensDetails.cached_tokens`, writes in `cache_write_tokens`,
   * when the summarizer reported them), else null. A compaction another process committed first is not an error.
   */
  async runCompaction(
    args?: OpenAIResponsesCompactionArgs,
    runContext?: RunContext,
  ): Promise<OpenAIResponsesCompactionResult | null> {
    return this.#serial(async () => {
      this.#open();
      await this.session.refresh();
      const turnId = this.#turnId;
      this.#turnId = undefined;
      if (turnId !== undefined) await this.session.completeTurnIfNamed(turnId, usageOf(runContext));
      // Another process compacting first is not an error: the policy plans again and finds nothing to do.
      const outcome = await compact(this.session, {
        ...this.#parts.compaction,
        trigger: args?.force === true ? "manual" : "auto",
        ...(args?.force === true ? { force: true } : {}),
      });
      if (outcome.status !== "compacted") return null;
      const { auxTokensIn, auxTokensOut, auxTokensCacheRead, auxTokensCacheWrite } =
        outcome.event.type === "messages.superseded" ? outcome.event.data.stats : {};
      if (auxTokensIn === undefined && auxTokensOut === undefined) return null;
      const inputTokens = auxTokensIn ?? 0;
      const outputTokens = auxTokensOut ?? 0;
      return {
        usage: new this.#parts.sdk.RequestUsage({
          inputTokens,
          outputTokens,
          totalTokens: inputTokens + outputTokens,
          inputTokensDetails: definedFields({
            cached_tokens: auxTokensCacheRead,
            cache_write_tokens: auxTokensCacheWrite,
          }),
        }),
      };
    });
  }

  /**
   * Keeps a run interrupted for tool approvals with the session (`result.state` of a run with
   * `interruptions`), so any process resumes it by session id alone: interruptedRun. Stored on the
   * message holding the waiting calls (one `retract` rewrite, the original one `expand` away). The
   * state holds the run's `context` verbatim unless `{ context: false }` (then `{}`: give the context
   * to interruptedRun again). VALIDATION (path `state`) for a state without interruptions, or whose calls
   * are not waiting in this session (it ran on another session, or was resumed or abandoned since), and
   * (path `state.context`) for a context JSON cannot hold; nothing is written then.
   */
  async saveInterruptedRun(state: InterruptedState, options: SaveInterruptedRunOptions = {}): Promise<void> {
    const run = interruptedRunOf(state, options.context !== false);
    await this.#write((current) => planKeepRun(current, run));
  }

  /**
   * The run kept by saveInterruptedRun, rebuilt for `agent` (`RunState.fromString`), read fresh from the
   * log: approve or reject its interruptions and pass it to `run(agent, state, { session })`. With
   * `context` (a value or a RunContext, serializable or not), the resumed run gets it instead of the
   * stored one (`RunState.fromStringWithContext`, the stored approvals merged into it). Undefined when no
   * kept run waits: none was kept, or its calls have results now (it was resumed), or a later run
   * abandoned them.
   */
  // biome-ignore lint/suspicious/noExplicitAny: any agent, as RunState.fromString takes it
  async interruptedRun<TAgent extends Agent<any, any>, TContext = unknown>(
    agent: TAgent,
    options: { context?: TContext | RunContext<TContext> } = {},
  ): Promise<RunState<TContext, TAgent> | undefined> {
    if (agent === null || typeof agent !== "object") {
      throw new ValidationError("interruptedRun takes the agent to resume the run with", [`agent: ${String(agent)}`], {
        path: "agent",
      });
    }
    const run = await this.#serial(async () => {
      this.#open();
      await this.session.refresh();
      return pendingRun(this.session.state);
    });
    if (run === undefined) return undefined;
    const { sdk } = this.#parts;
    const context = options.context;
    if (context === undefined) return sdk.RunState.fromString<TContext, TAgent>(agent, run.state);
    const runContext = context instanceof sdk.RunContext ? context : new sdk.RunContext(context as TContext);
    return sdk.RunState.fromStringWithContext(agent, run.state, runContext as RunContext<TContext>);
  }

  /**
   * A new session on the same runtime whose history is this one's as it stood at `at` (lineage `fork`):
   * writes to either never show in the other.
   */
  async fork(at: ForkPoint): Promise<PalimpsestAgentsSession> {
    return this.#serial(async () => {
      this.#open();
      await this.session.refresh();
      const forked = await this.runtime.fork(this.session.id, at);
      if (this.#parts.holders !== undefined) this.#parts.holders.open++;
      return new PalimpsestAgentsSession({ ...this.#parts, session: forked });
    });
  }

  /**
   * Closes the store when this session opened it and no fork of it is still open (a shared runtime
   * stays open); later calls are VALIDATION.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.catch(() => {});
    const holders = this.#parts.holders;
    if (holders !== undefined && --holders.open === 0) await this.runtime.close();
  }

  /** The open turn's id: the appends of one run name it, and runCompaction completes it. */
  #turn(): string {
    this.#turnId ??= randomUUID();
    return this.#turnId;
  }

  /**
   * Which calls of the view's items (a withdrawn run keeps its calls as items only) and of `items` have a
   * result in the log (the plans' `answered`). A live tool message answers its call; a call the batch
   * answers is new to the log; only the rest are asked of the log, so a write whose calls are all answered
   * there costs no lookup.
   */
  async #answeredElsewhere(state: Readonly<SessionState>, items: readonly AgentInputItem[]): Promise<Set<string>> {
    const answered = new Set<string>();
    for (const entry of state.live) if (entry.message.toolCallId !== undefined) answered.add(entry.message.toolCallId);
    const inBatch = new Set(items.flatMap((item) => (itemRole(item) === "result" ? (callIdOf(item) ?? []) : [])));
    const ask = new Set<string>();
    const consider = (item: AgentInputItem) => {
      const id = itemRole(item) === "call" ? callIdOf(item) : undefined;
      if (id !== undefined && !answered.has(id) && !inBatch.has(id)) ask.add(id);
    };
    for (const { message } of state.live) {
      const stored = storedItems(message.metadata);
      if (stored !== undefined) stored.forEach(consider);
      else for (const call of message.toolCalls ?? []) if (!answered.has(call.id)) ask.add(call.id);
    }
    items.forEach(consider);
    if (ask.size > 0) for (const id of await this.session.answeredCalls(ask)) answered.add(id);
    return answered;
  }

  /** The state (and which calls its log answered) just before the keyed write `key`, when it is in the log. */
  async #stateBefore(key: string): Promise<{ state: SessionState; answered: ReadonlySet<string> } | undefined> {
    const keyed = await this.runtime.store.keyedBatch(this.session.id, key);
    if (keyed === undefined) return undefined;
    const before =
      keyed.firstSeq === 1 ? [] : await this.runtime.store.readStream(this.session.id, { toSeq: keyed.firstSeq - 1 });
    const answered = callsAnsweredIn(keysOfEvents(before));
    return { state: foldEvents(initialState(this.session.id), before), answered };
  }

  /**
   * Plans a write on the freshly read state and commits it through the session's write loop: when another
   * process wrote first, the state is read again and the write planned again on it (a plan is only valid
   * on the state it was made from), so a conflict never reaches the caller.
   */
  async #write(
    plan: (
      state: Readonly<SessionState>,
      answered: ReadonlySet<string>,
    ) => HistoryWrite | undefined | Promise<HistoryWrite | undefined>,
    items: readonly AgentInputItem[] = [],
  ): Promise<void> {
    await this.#serial(async () => {
      this.#open();
      await this.session.refresh();
      await this.session.write(async (state) => plan(state, await this.#answeredElsewhere(state, items)));
    });
  }

  /** Runs `task` after every earlier call of this object (the Runner awaits each, but a caller may not). */
  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  #open(): void {
    if (this.#closed) throw new StorageError("session", "this session is closed: open another with openAgentsSession");
  }
}

/** The turn's usage as Palimpsest records it: the last model request's, when the run context has one with tokens. */
function usageOf(runContext: RunContext | undefined): Usage | undefined {
  const last = runContext?.usage?.requestUsageEntries?.at(-1);
  if (last === undefined || last.inputTokens <= 0) return undefined;
  const cached = last.inputTokensDetails?.cached_tokens;
  return {
    promptTokens: last.inputTokens,
    completionTokens: last.outputTokens,
    ...(typeof cached === "number" && cached > 0 ? { cacheReadTokens: cached } : {}),
  };
}
