import {
  type AppendResult,
  BATCH_MODES,
  type CompactionFailed,
  ConcurrencyConflict,
  type CountedMessage,
  checkId,
  checkOptions,
  commandKeys,
  type DomainEvent,
  decideSequence,
  definedFields,
  type EventStore,
  foldEvents,
  freshKeysOf,
  IdempotencyMismatch,
  type InsertionTrim,
  InvariantViolation,
  initialState,
  isPalimpsestError,
  type KnownKeys,
  keysOfEvents,
  type MessageSearch,
  type MessagesSuperseded,
  NO_KEYS,
  type OptionShape,
  OptionValues,
  planTrim,
  type ReadStreamOptions,
  resultKey,
  type SessionCommand,
  type SessionHandedOff,
  type SessionStarted,
  type SessionState,
  type SnapshotStore,
  type StoredEvent,
  sessionErased,
  supersedeFor,
  type TokenCounter,
  type Usage,
  ValidationError,
} from "@palimpsest/core";
import {
  type ActiveView,
  activeView,
  type CompactionRecord,
  compactionHistory,
  type ExpandedMessage,
  expandCompaction,
  type ResumeState,
  resumeState,
} from "@palimpsest/projections";
import { Contention } from "./contention.ts";
import { saveSnapshot, snapshotInterval } from "./load-session.ts";
import { answerMayBeLost, isSameBatch } from "./lost-answer.ts";
import { type MessageInput, toMessage } from "./message-input.ts";
import { NamedTurns } from "./named-turns.ts";
import { type RecallOptions, type RecallResult, recall } from "./recall.ts";
import { prepareRewrite, type RewriteRequest } from "./rewrite.ts";
import type { SessionWrite, WritePlan } from "./session-write.ts";

/** Everything a session handle needs from the runtime that opened it. */
export interface SessionContext {
  store: EventStore & SnapshotStore & MessageSearch;
  /** The session's tokenizer, loaded on first use (a read-only command never pays for it). */
  counter: () => Promise<TokenCounter>;
  /** Take a snapshot once this many events have passed since the last one. */
  snapshotEvery: number;
  /**
   * Runs a snapshot's write off the path of the write that made it due, after the session's earlier ones
   * (the runtime's BackgroundWrites, shared by its handles).
   */
  background: { run(sessionId: string, write: () => Promise<void>): void };
  onSnapshotError?: (error: unknown) => void;
  /** Tool outputs over this many tokens are trimmed in the append that records them. */
  trimTokens?: number;
  /** Called after every completed turn (the automatic compaction check). */
  afterTurn?: (session: Session) => Promise<void>;
  /** How long (ms) a write goes on re-reading and deciding again while other writers move the session (see Contention). */
  contentionTimeoutMs: number;
}

/** Options of one append. */
export interface AppendMessagesOptions {
  turnId?: string;
  /**
   * Completes `turnId` in the same append, after the messages (one transaction, where `append` then
   * `completeTurn` are two), with the provider's usage when given (`true`: none known); then the automatic
   * compaction check runs, as after completeTurn. For the last append of a turn. Needs `turnId`.
   */
  completeTurn?: true | Usage;
  /**
   * A retry with the same key and identical messages returns the original result instead of appending
   * twice; messages given without an id get one derived from the key, so a retry is identical.
   */
  idempotencyKey?: string;
}

/** Every key of AppendMessagesOptions with its value's schema (checkOptions; completeTurn is checked by turnCompletion). */
const APPEND_OPTION_SHAPE: OptionShape<AppendMessagesOptions> = {
  turnId: OptionValues.text,
  completeTurn: OptionValues.any,
  idempotencyKey: OptionValues.text,
};

/** Commands decided for one attempt of a write, and the idempotency key they are appended under. */
interface Decision {
  commands: readonly SessionCommand[];
  idempotencyKey?: string | undefined;
}

/** What #commit asks, on every attempt, of the state it decides on (undefined: nothing to write). */
type DecisionPlan = (state: SessionState) => Decision | undefined | Promise<Decision | undefined>;

/**
 * A handle on one session: appends messages, completes turns, commits compactions, and reads the
 * active view. Every write goes through the decider, then the store, then evolves the local state.
 */
export class Session {
  readonly id: string;
  #state: SessionState;
  #snapshotSeq: number;
  readonly #ctx: SessionContext;
  readonly #namedTurns = new NamedTurns();

  /** Wraps a loaded state; use Palimpsest.startSession or Palimpsest.resume to get one. */
  constructor(ctx: SessionContext, state: SessionState, snapshotSeq: number) {
    this.id = state.sessionId;
    this.#ctx = ctx;
    this.#state = state;
    this.#snapshotSeq = snapshotSeq;
  }

  /** The current fold of the log (read-only: never mutate it). */
  get state(): Readonly<SessionState> {
    return this.#state;
  }

  /** The active prompt view. */
  view(): ActiveView {
    return activeView(this.#state);
  }

  /** The resume state: last seq, view version, last compaction, lineage. */
  resumeState(): ResumeState {
    return resumeState(this.#state);
  }

  /** Records the session's start; the first event of every session. */
  async start(data: SessionStarted): Promise<StoredEvent[]> {
    return this.#execute({ type: "start", data });
  }

  /**
   * Records the session's start with `input` already in it, in one append: the session never exists
   * without those messages (a hand-off successor and the view it carries). A retry with the same key replays.
   */
  async startWith(
    data: SessionStarted,
    input: readonly MessageInput[],
    options: Omit<AppendMessagesOptions, "completeTurn"> = {},
  ): Promise<StoredEvent[]> {
    const command = await this.#appendCommand(input, options);
    const commands = [{ type: "start", data } as const, command];
    return this.#commit(() => ({ commands }), options.idempotencyKey);
  }

  /**
   * Appends messages, validating each once and counting its tokens once with the session's tokenizer.
   * The events returned have their data deeply frozen, the messages too (the view holds the same ones);
   * the objects given are never frozen.
   */
  async append(
    input: MessageInput | readonly MessageInput[],
    options: AppendMessagesOptions = {},
  ): Promise<StoredEvent[]> {
    checkOptions("append", options, APPEND_OPTION_SHAPE);
    const list = Array.isArray(input) ? (input as readonly MessageInput[]) : [input as MessageInput];
    const { completeTurn, turnId } = options;
    const completion = completeTurn === undefined ? undefined : turnCompletion(completeTurn, turnId);
    const commands = [await this.#appendCommand(list, options)];
    if (completion !== undefined) commands.push(completion);
    return this.#afterCompletion(await this.#commit(() => ({ commands }), options.idempotencyKey));
  }

  /**
   * Records the end of a turn with the provider's real usage, when known; then the automatic compaction check.
   * The turn must be one an append named (`{ turnId }`), else INVARIANT_VIOLATED `unknown-turn`; a turn
   * completes once: completing it again records nothing and returns [] (a retry after a crash is safe).
   */
  async completeTurn(turnId: string, usage?: Usage): Promise<StoredEvent[]> {
    const events = await this.#execute(completeTurnCommand(turnId, usage));
    await this.#ctx.afterTurn?.(this);
    return events;
  }

  /**
   * Commits a compaction, compare-and-set on its basis view version under the session lock: a basis the
   * view has moved past is CONCURRENCY_CONFLICT (`view-version`, reason `precondition`). To have the
   * runtime plan it again on the moved view instead, write it through `write` as a `supersede` spec.
   */
  async supersede(data: MessagesSuperseded): Promise<StoredEvent[]> {
    return this.#execute({ type: "supersede", data });
  }

  /**
   * Rewrites the view as one batch: supersedes `targets` (a retraction, or a compaction done at the
   * source) and appends after it, atomically; see RewriteRequest. Keyed, a retry replays.
   */
  async rewrite(request: RewriteRequest): Promise<StoredEvent[]> {
    const commands = await prepareRewrite(request, await this.#ctx.counter());
    return this.#commit((state) => ({ commands: commands(state) }), request.idempotencyKey);
  }

  /**
   * Writes what `plan` decides on the session's current state, in one append. When another writer moved
   * the session first, the state is re-read and `plan` asked again, until it commits or decides there is
   * nothing to write (undefined: [] is returned), for at most the runtime's contention timeout (then
   * CONCURRENCY_CONFLICT, reason `contention`). What a write decided on the tail it saw (pop the newest
   * message, record an approval on the message that asked) needs: it is never committed on a log it did
   * not see. An error `plan` throws reaches the caller; nothing is written then.
   */
  async write(plan: WritePlan): Promise<StoredEvent[]> {
    const events = await this.#commit(async (state) => {
      // Planned on an erased session's empty view, a compaction would find nothing to do: refused as an append is.
      if (state.erasedAt !== undefined) throw sessionErased(this.id, undefined, state.erasedAt);
      const write = await plan(state);
      return write === undefined ? undefined : this.#decisionOf(write, state);
    });
    return this.#afterCompletion(events);
  }

  /** `events`, after the after-turn check when they complete a turn (an append's `completeTurn`), as after completeTurn. */
  async #afterCompletion(events: StoredEvent[]): Promise<StoredEvent[]> {
    if (events.some((e) => e.type === "turn.completed")) await this.#ctx.afterTurn?.(this);
    return events;
  }

  /** Records a failed compaction attempt; the view is untouched. */
  async recordCompactionFailure(data: CompactionFailed): Promise<StoredEvent[]> {
    return this.#execute({ type: "record-compaction-failure", data });
  }

  /**
   * Marks this session as handed off to `toSessionId`; it takes no more writes. `dropped` records what
   * a portable hand-off leaves out of the view it carries.
   */
  async markHandedOff(
    toSessionId: string,
    reason?: string,
    dropped?: SessionHandedOff["dropped"],
  ): Promise<StoredEvent[]> {
    return this.#execute({
      type: "hand-off",
      toSessionId,
      ...definedFields({ reason }),
      ...definedFields({ dropped }),
    });
  }

  /** Reads any events other writers appended since this handle last looked. */
  async refresh(): Promise<void> {
    const events = await this.#ctx.store.readStream(this.id, { fromSeq: this.#state.lastSeq + 1 });
    foldEvents(this.#state, events);
    this.#namedTurns.note(events);
  }

  /** This session's events as its log holds them, from `fromSeq` to `toSeq` (default: all of them). */
  readLog(options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    return this.#ctx.store.readStream(this.id, options);
  }

  /** The compaction history of this session, oldest first. */
  async history(): Promise<CompactionRecord[]> {
    return compactionHistory(await this.#ctx.store.readStream(this.id));
  }

  /** The exact messages behind a compaction (with `deep`, down to the first-appended originals). */
  async expand(compactionId: string, deep = false): Promise<ExpandedMessage[]> {
    return expandCompaction(await this.#ctx.store.readStream(this.id), compactionId, deep);
  }

  /**
   * The original messages of this session (and of the sessions it came from) that hold any word of
   * `query`, superseded ones included, best first: what compaction took out of the view, given back
   * (see recall.ts). ValidationError for a query with no word or bad options.
   */
  recall(query: string, options?: RecallOptions): Promise<RecallResult> {
    return recall(this.#ctx.store, this.id, query, options);
  }

  /** This session's tokenizer (the encoding recorded at its start), for measuring replacements. */
  tokenCounter(): Promise<TokenCounter> {
    return this.#ctx.counter();
  }

  /** The append command of `list`: each message counted once with the session's tokenizer, trims planned. */
  async #appendCommand(list: readonly MessageInput[], options: AppendMessagesOptions): Promise<SessionCommand> {
    const key =
      options.idempotencyKey === undefined
        ? undefined
        : checkId(options.idempotencyKey, "idempotencyKey", "idempotencyKey");
    if (options.turnId !== undefined) checkId(options.turnId, "turnId");
    // Validated before anything counts or serializes them; a retry must be identical, so with a key a
    // message without an id gets one derived from the key.
    const valid = list.map((m, i) => toMessage(m, `messages[${i}]`, key === undefined ? undefined : `${key}#${i}`));
    const counter = await this.#ctx.counter();
    const messages: CountedMessage[] = [];
    // One at a time, the loop free while a big one is counted (a huge tool output must not stall the process).
    for (const message of valid) messages.push({ message, tokens: await counter.countMessageAsync(message) });
    const trims = this.#trims(messages, counter);
    return {
      type: "append-messages",
      messages,
      ...definedFields({ turnId: options.turnId }),
      ...(trims.length === 0 ? {} : { trims }),
    };
  }

  /** Trimmed copies of the batch's oversized tool outputs, when the runtime trims on append. */
  #trims(messages: readonly CountedMessage[], counter: TokenCounter): InsertionTrim[] {
    const maxTokens = this.#ctx.trimTokens;
    if (maxTokens === undefined) return [];
    return messages.flatMap(({ message, tokens }) => {
      const trimmed = planTrim(message, tokens, { maxTokens }, (m) => counter.countMessage(m));
      return trimmed === undefined
        ? []
        : [{ targetId: message.id, stub: { message: trimmed.message, tokens: trimmed.tokens } }];
    });
  }

  /**
   * Completes `turnId` as completeTurn does when an append named it; a turn no append named (a response
   * that wrote nothing under it) is passed over: nothing recorded, [] returned, no compaction check.
   */
  async completeTurnIfNamed(turnId: string, usage?: Usage): Promise<StoredEvent[]> {
    try {
      return await this.completeTurn(turnId, usage);
    } catch (error) {
      if (error instanceof InvariantViolation && error.details.rule === "unknown-turn") return [];
      throw error;
    }
  }

  /** Which of `callIds` have a tool result in the log (live or since superseded), asked of the log's keys. */
  async answeredCalls(callIds: Iterable<string>): Promise<Set<string>> {
    const ids = [...new Set(callIds)];
    if (ids.length === 0) return new Set();
    const known = await this.#ctx.store.knownKeys(this.id, ids.map(resultKey));
    return new Set(ids.filter((id) => known.has(resultKey(id))));
  }

  /** Decides one command, appends and folds (see #commit). */
  async #execute(command: SessionCommand, idempotencyKey?: string): Promise<StoredEvent[]> {
    const commands = [command];
    return this.#commit(() => ({ commands }), idempotencyKey);
  }

  /** The commands of a planned write, decided on `state` (its messages validated and counted here). */
  async #decisionOf(write: SessionWrite, state: Readonly<SessionState>): Promise<Decision> {
    switch (write.kind) {
      case "append": {
        const { messages, turnId, idempotencyKey, completeTurn } = write;
        const completion = completeTurn === undefined ? undefined : turnCompletion(completeTurn, turnId);
        const options = { ...definedFields({ turnId }), ...definedFields({ idempotencyKey }) };
        const commands = [await this.#appendCommand(messages, options)];
        if (completion !== undefined) commands.push(completion);
        return { commands, idempotencyKey };
      }
      case "rewrite": {
        const commands = await prepareRewrite(write.rewrite, await this.#ctx.counter());
        return { commands: commands(state), idempotencyKey: write.rewrite.idempotencyKey };
      }
      case "supersede":
        return { commands: [{ type: "supersede", data: supersedeFor(state, write.spec) }] };
      case "compaction-failed":
        return { commands: [{ type: "record-compaction-failure", data: write.data }] };
      case "hand-off": {
        const { toSessionId, reason, dropped } = write;
        return {
          commands: [{ type: "hand-off", toSessionId, ...definedFields({ reason }), ...definedFields({ dropped }) }],
        };
      }
      case "batch": {
        const commands: SessionCommand[] = [];
        for (const batched of write.writes) commands.push(...(await this.#decisionOf(batched, state)).commands);
        return { commands };
      }
    }
  }

  /**
   * Decides `commands` on the current state: with `askKeys`, told which of their log keys the log already
   * holds; without, on the state and the turns this handle saw named (NamedTurns): every id the view does
   * not hold taken as new, which the append's fresh keys then make the store check.
   */
  async #decide(commands: readonly SessionCommand[], askKeys: boolean): Promise<DomainEvent[]> {
    const keys = commands.flatMap(commandKeys);
    const known = !askKeys
      ? this.#namedTurns.knownAmong(keys)
      : keys.length === 0
        ? NO_KEYS
        : await this.#ctx.store.knownKeys(this.id, keys);
    return decideSequence(this.#state, commands, known);
  }

  /**
   * The one write loop of the session: asks `plan` for the commands on the current state, decides them
   * (told which of their ids the log already holds when a refusal may depend on it), appends the batch in
   * one append (expected version: the last seq of the state it was planned and decided on; a compaction
   * also compare-and-set on the view version it was decided from) and folds. Another writer moving the
   * session first is never the caller's problem: the state is re-read and the plan made and decided again,
   * with jittered pauses, for the contention timeout (Contention); a write planned on a state this handle
   * moved past meanwhile is planned again too. A refusal decided on a state the log has since moved past
   * is decided again the same way. A keyed write the plan, the decider or the store refuses may be the
   * retry of one already committed: then the log decides (see #replay). An append whose connection dropped
   * under it (answerMayBeLost) is never the caller's to sort out either: the log is read again and tells
   * whether it committed (#landed: then its events are returned, as if the answer had come); if the log still
   * ends where it was planned, it is appended again (three appends in all, with short pauses: then the
   * retryable STORAGE error reaches the caller, nothing half-written); if another writer moved the log, it is
   * planned and decided again as after a lost race. `idempotencyKey` is the key of a plan that always decides
   * under it (a plan's own Decision may name one instead).
   */
  async #commit(plan: DecisionPlan, idempotencyKey?: string): Promise<StoredEvent[]> {
    const contention = new Contention(this.#ctx.contentionTimeoutMs);
    // First decided on the state alone: the append's fresh keys leave uniqueness over the history to the
    // log, in the same round trip. A refusal (by the decider, or a key the log holds) asks the log's keys
    // and decides again, so it names the rule a decider knowing the whole history names.
    let askKeys = false;
    for (;;) {
      const plannedAt = this.#state.lastSeq;
      let decision: Decision | undefined;
      try {
        decision = await contention.planning(() => plan(this.#state));
      } catch (error) {
        const replayed = await this.#afterRefusal(error, plan, idempotencyKey, plannedAt, contention);
        if (replayed === AGAIN) continue;
        return replayed;
      }
      if (await this.#movedWhilePlanning(plannedAt, contention)) continue;
      if (decision === undefined || decision.commands.length === 0) return [];
      const key = decision.idempotencyKey ?? idempotencyKey;
      let events: DomainEvent[];
      try {
        events = await this.#decide(decision.commands, askKeys);
      } catch (error) {
        if (!askKeys && historyMayExplain(error)) {
          askKeys = true;
          continue;
        }
        const replayed = await this.#afterRefusal(error, plan, key, plannedAt, contention);
        if (replayed === AGAIN) continue;
        return replayed;
      }
      if (await this.#movedWhilePlanning(plannedAt, contention)) continue;
      if (events.length === 0) return []; // nothing to record (a turn completed again)
      const viewVersion = events.find((e) => e.type === "messages.superseded")?.data.basis.viewVersion;
      try {
        const result = await this.#ctx.store.append(this.id, events, {
          expectedVersion: plannedAt === 0 ? "no-stream" : plannedAt,
          ...definedFields({ idempotencyKey: key }),
          ...(viewVersion === undefined ? {} : { viewVersion: { expected: viewVersion } }),
          freshKeys: freshKeysOf(events),
        });
        return await this.#applied(result);
      } catch (error) {
        // Decided on a state other than the keyed write's (this handle missed it): the log decides.
        const replayed =
          key !== undefined && error instanceof IdempotencyMismatch ? await this.#replay(plan, key) : undefined;
        if (replayed !== undefined) return replayed;
        if (!askKeys && error instanceof InvariantViolation && error.details.rule === "log-key-taken") {
          askKeys = true;
          continue;
        }
        if (answerMayBeLost(error)) {
          const landed = await this.#landed(error, plannedAt, events);
          if (landed !== undefined) return landed;
          // Not in the log: planned again, on the same state (the same batch, appended again) while the log still
          // ends where this was planned, else on what another writer appended.
          if (this.#state.lastSeq === plannedAt) await contention.dropped(error);
          else await contention.lost(this.id, plannedAt, this.#state.lastSeq, error);
          continue;
        }
        if (!(error instanceof ConcurrencyConflict)) throw error;
        // Another writer moved the stream (or the view) first: this state is stale by definition.
        await contention.lost(this.id, plannedAt, error.details.actual, error);
        await this.refresh();
      }
    }
  }

  /**
   * After an append of `events`, planned at `plannedAt`, failed with `error` so that it may have committed
   * (answerMayBeLost): re-reads the session (the store makes a read again itself on a dropped connection) and
   * returns the stored events when the log holds, right after `plannedAt`, exactly this batch (isSameBatch),
   * folded and snapshotted as a committed append's; undefined when it did not land (the log still ends at
   * `plannedAt`, or another writer's events follow it). When the re-read fails too, the server is unreachable:
   * `error` is thrown, and what the append did is for a retry with its key to find out.
   */
  async #landed(error: unknown, plannedAt: number, events: readonly DomainEvent[]): Promise<StoredEvent[] | undefined> {
    try {
      await this.refresh();
    } catch (readError) {
      throw answerMayBeLost(readError) ? error : readError;
    }
    if (this.#state.lastSeq === plannedAt) return undefined;
    const toSeq = plannedAt + events.length;
    const stored = await this.#ctx.store.readStream(this.id, { fromSeq: plannedAt + 1, toSeq });
    if (!isSameBatch(stored, events)) return undefined;
    this.#maybeSnapshot(stored.some(compactsBatch));
    return stored;
  }

  /**
   * Whether this handle folded events (its own other writes) while a write was planned or decided: then
   * it is planned again on them, never committed on a state it was not made from. Throws a `contention`
   * conflict once the budget is spent.
   */
  async #movedWhilePlanning(plannedAt: number, contention: Contention): Promise<boolean> {
    const now = this.#state.lastSeq;
    if (now === plannedAt) return false;
    await contention.lost(this.id, plannedAt, now, undefined);
    return true;
  }

  /**
   * After the plan or the decider refused a write: the original events when it is a keyed write the log
   * already holds (one indexed lookup); AGAIN when the log moved past the state the refusal was decided on
   * (another process's commit, or this handle's own), so the refusal may be the stale state's and the write
   * is planned and decided again (within the contention budget: spent, it is a `contention` conflict, not
   * the stale refusal); otherwise the refusal stands and is thrown.
   */
  async #afterRefusal(
    error: unknown,
    plan: DecisionPlan,
    idempotencyKey: string | undefined,
    plannedAt: number,
    contention: Contention,
  ): Promise<StoredEvent[] | typeof AGAIN> {
    const replayed = idempotencyKey === undefined ? undefined : await this.#replay(plan, idempotencyKey);
    if (replayed !== undefined) return replayed;
    if (!STATE_DEPENDENT.some((code) => isPalimpsestError(error, code))) throw error;
    await this.refresh();
    if (this.#state.lastSeq === plannedAt) throw error;
    await contention.lost(this.id, plannedAt, this.#state.lastSeq, error);
    return AGAIN;
  }

  /**
   * The original events of a keyed write already in the log, when this command is its retry: decided
   * again on the state it was decided on (the log before the key's first event, so a trim's basis and
   * stats come out the same in any process) and sent to the store, which compares the batch's content
   * hash and returns the original result, or throws IdempotencyMismatch. Undefined when the key is unused.
   */
  async #replay(plan: DecisionPlan, idempotencyKey: string): Promise<StoredEvent[] | undefined> {
    const keyed = await this.#ctx.store.keyedBatch(this.id, idempotencyKey);
    if (keyed === undefined) return undefined;
    const before = keyed.firstSeq === 1 ? [] : await this.#ctx.store.readStream(this.id, { toSeq: keyed.firstSeq - 1 });
    let events: DomainEvent[];
    try {
      const state = foldEvents(initialState(this.id), before);
      const known: KnownKeys = keysOfEvents(before);
      const decision = await plan(state);
      if (decision === undefined) throw new IdempotencyMismatch(this.id, idempotencyKey);
      events = decideSequence(state, decision.commands, known);
    } catch {
      // The original was decided on that state: a command refused there is not the same content.
      throw new IdempotencyMismatch(this.id, idempotencyKey);
    }
    // Exact version: the key is checked first, so this replays or mismatches, and can never append.
    const result = await this.#ctx.store.append(this.id, events, {
      expectedVersion: keyed.firstSeq === 1 ? "no-stream" : keyed.firstSeq - 1,
      idempotencyKey,
    });
    return this.#applied(result);
  }

  /** Folds what an append returned (re-reading the stream when it replayed an earlier write) and snapshots. */
  async #applied(result: AppendResult): Promise<StoredEvent[]> {
    if (result.replayed) await this.refresh();
    else {
      foldEvents(this.#state, result.events);
      this.#namedTurns.note(result.events);
    }
    this.#maybeSnapshot(result.events.some(compactsBatch));
    return result.events;
  }

  /**
   * Snapshots every `snapshotEvery` events (snapshotInterval: less often for a view past
   * SNAPSHOT_SCALE_TOKENS), and right after a batch compaction (summary, prune, pre-compaction): the view
   * is then at its smallest, so a resume reads the least. The snapshot is a cache, so the write that made
   * it due does not wait for it: it is encoded and stored in the background, from the state as it is then.
   */
  #maybeSnapshot(compacted: boolean): void {
    if (this.#state.lastSeq === this.#snapshotSeq) return;
    const interval = snapshotInterval(this.#ctx.snapshotEvery, this.#state.liveTokens);
    if (!compacted && this.#state.lastSeq - this.#snapshotSeq < interval) return;
    this.#snapshotSeq = this.#state.lastSeq;
    this.#ctx.background.run(this.id, () => saveSnapshot(this.#ctx.store, this.#state, this.#ctx.onSnapshotError));
  }
}

/** The completion an append's `completeTurn` option asks for: VALIDATION without a turnId or with a usage that is no object. */
function turnCompletion(completeTurn: true | Usage, turnId: string | undefined): SessionCommand {
  if (turnId === undefined) {
    throw new ValidationError("completeTurn needs the turnId of the turn it completes", ["turnId: missing"], {
      path: "completeTurn",
    });
  }
  if (completeTurn !== true && (typeof completeTurn !== "object" || completeTurn === null)) {
    throw new ValidationError(
      "completeTurn takes true or the turn's usage",
      [`completeTurn: ${String(completeTurn)}`],
      {
        path: "completeTurn",
      },
    );
  }
  return completeTurnCommand(turnId, completeTurn === true ? undefined : completeTurn);
}

/** The command completing `turnId`, with its usage when known. */
function completeTurnCommand(turnId: string, usage: Usage | undefined): SessionCommand {
  return usage === undefined ? { type: "complete-turn", turnId } : { type: "complete-turn", turnId, usage };
}

/** What #afterRefusal returns when the write is to be planned and decided again. */
const AGAIN = Symbol("again");

/** The refusals that may depend on the state they were decided on (a stale one is decided again). */
const STATE_DEPENDENT = ["VALIDATION", "INVARIANT_VIOLATED", "CONCURRENCY_CONFLICT", "NOT_FOUND"] as const;

/** Whether a committed event is a batch compaction (one that shrinks the view's head). */
function compactsBatch(event: StoredEvent): boolean {
  return event.type === "messages.superseded" && BATCH_MODES.has(event.data.mode);
}

/**
 * Whether a refusal of a decision made on the state alone is decided again with the log's keys: every
 * invariant refusal is (a result of a call answered long ago, a turn completed before, or which of two
 * broken rules comes first may depend on the history), so it is the one a decider knowing all of it gives.
 */
function historyMayExplain(error: unknown): boolean {
  return error instanceof InvariantViolation;
}
