import {
  type AppendResult,
  type CompactionFailed,
  ConcurrencyConflict,
  type CountedMessage,
  checkId,
  type DomainEvent,
  decide,
  decideSequence,
  type EventStore,
  foldEvents,
  IdempotencyMismatch,
  type InsertionTrim,
  initialState,
  type MessagesSuperseded,
  planTrim,
  type SessionCommand,
  type SessionHandedOff,
  type SessionStarted,
  type SessionState,
  type SnapshotStore,
  type StoredEvent,
  type TokenCounter,
  type Usage,
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
import { saveSnapshot } from "./load-session.ts";
import { type MessageInput, toMessage } from "./message-input.ts";
import { prepareRewrite, type RewriteRequest } from "./rewrite.ts";

/** Everything a session handle needs from the runtime that opened it. */
export interface SessionContext {
  store: EventStore & SnapshotStore;
  /** The session's tokenizer, loaded on first use (a read-only command never pays for it). */
  counter: () => Promise<TokenCounter>;
  /** Take a snapshot once this many events have passed since the last one. */
  snapshotEvery: number;
  onSnapshotError?: (error: unknown) => void;
  /** Tool outputs over this many tokens are trimmed in the append that records them. */
  trimTokens?: number;
  /** Called after every completed turn (the automatic compaction check). */
  afterTurn?: (session: Session) => Promise<void>;
}

/** Options of one append. */
export interface AppendMessagesOptions {
  turnId?: string;
  /**
   * A retry with the same key and identical messages returns the original result instead of appending
   * twice; messages given without an id get one derived from the key, so a retry is identical.
   */
  idempotencyKey?: string;
}

const MAX_RETRIES = 5;

/**
 * A handle on one session: appends messages, completes turns, commits compactions, and reads the
 * active view. Every write goes through the decider, then the store, then evolves the local state.
 */
export class Session {
  readonly id: string;
  #state: SessionState;
  #snapshotSeq: number;
  readonly #ctx: SessionContext;

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
    options: AppendMessagesOptions = {},
  ): Promise<StoredEvent[]> {
    const command = await this.#appendCommand(input, options);
    return this.#commit((state) => decideSequence(state, [{ type: "start", data }, command]), options.idempotencyKey);
  }

  /** Appends messages, counting each one's tokens once with the session's tokenizer. */
  async append(
    input: MessageInput | readonly MessageInput[],
    options: AppendMessagesOptions = {},
  ): Promise<StoredEvent[]> {
    const list = Array.isArray(input) ? (input as readonly MessageInput[]) : [input as MessageInput];
    return this.#execute(await this.#appendCommand(list, options), options.idempotencyKey);
  }

  /**
   * Records the end of a turn with the provider's real usage, when known; then the automatic compaction check.
   * The turn must be one an append named (`{ turnId }`), else INVARIANT_VIOLATED `unknown-turn`; a turn
   * completes once: completing it again records nothing and returns [] (a retry after a crash is safe).
   */
  async completeTurn(turnId: string, usage?: Usage): Promise<StoredEvent[]> {
    const events = await this.#execute(
      usage === undefined ? { type: "complete-turn", turnId } : { type: "complete-turn", turnId, usage },
    );
    await this.#ctx.afterTurn?.(this);
    return events;
  }

  /** Commits a compaction, compare-and-set on its basis view version under the session lock. */
  async supersede(data: MessagesSuperseded): Promise<StoredEvent[]> {
    return this.#execute({ type: "supersede", data });
  }

  /**
   * Rewrites the view as one batch: supersedes `targets` (a retraction, or a compaction done at the
   * source) and appends after it, atomically; see RewriteRequest. Keyed, a retry replays.
   */
  async rewrite(request: RewriteRequest): Promise<StoredEvent[]> {
    const commands = await prepareRewrite(request, await this.#ctx.counter());
    return this.#commit((state) => decideSequence(state, commands(state)), request.idempotencyKey);
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
      ...(reason === undefined ? {} : { reason }),
      ...(dropped === undefined ? {} : { dropped }),
    });
  }

  /** Reads any events other writers appended since this handle last looked. */
  async refresh(): Promise<void> {
    const events = await this.#ctx.store.readStream(this.id, { fromSeq: this.#state.lastSeq + 1 });
    foldEvents(this.#state, events);
  }

  /** The compaction history of this session, oldest first. */
  async history(): Promise<CompactionRecord[]> {
    return compactionHistory(await this.#ctx.store.readStream(this.id));
  }

  /** The exact messages behind a compaction (with `deep`, down to the first-appended originals). */
  async expand(compactionId: string, deep = false): Promise<ExpandedMessage[]> {
    return expandCompaction(await this.#ctx.store.readStream(this.id), compactionId, deep);
  }

  /** This session's tokenizer (the encoding recorded at its start), for measuring replacements. */
  tokenCounter(): Promise<TokenCounter> {
    return this.#ctx.counter();
  }

  /** The append command of `list`: each message counted once with the session's tokenizer, trims planned. */
  async #appendCommand(list: readonly MessageInput[], options: AppendMessagesOptions): Promise<SessionCommand> {
    const key = options.idempotencyKey === undefined ? undefined : checkId(options.idempotencyKey, "idempotencyKey");
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
      ...(options.turnId === undefined ? {} : { turnId: options.turnId }),
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

  /** Decides one command, appends and folds (see #commit). */
  async #execute(command: SessionCommand, idempotencyKey?: string): Promise<StoredEvent[]> {
    return this.#commit((state) => decide(state, command), idempotencyKey);
  }

  /**
   * Decides (`decideOn` the current state), appends the batch in one append, and folds. A batch holding a
   * compaction is compare-and-set on the view version it was decided from; when another writer moved the
   * stream first, it re-reads and decides again. A keyed write the decider refuses, or the store refuses
   * as a mismatch, may be the retry of one already committed: then the log decides (see #replay).
   */
  async #commit(decideOn: (state: SessionState) => DomainEvent[], idempotencyKey?: string): Promise<StoredEvent[]> {
    for (let attempt = 0; ; attempt++) {
      let events: DomainEvent[];
      try {
        events = decideOn(this.#state);
      } catch (error) {
        const replayed = idempotencyKey === undefined ? undefined : await this.#replay(decideOn, idempotencyKey);
        if (replayed === undefined) throw error;
        return replayed;
      }
      if (events.length === 0) return []; // nothing to record (a turn completed again)
      const viewVersion = events.find((e) => e.type === "messages.superseded")?.data.basis.viewVersion;
      try {
        const result = await this.#ctx.store.append(this.id, events, {
          expectedVersion: this.#state.lastSeq === 0 ? "no-stream" : this.#state.lastSeq,
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
          ...(viewVersion === undefined ? {} : { viewVersion: { expected: viewVersion } }),
        });
        return await this.#applied(result);
      } catch (error) {
        // Decided on a state other than the keyed write's (this handle missed it): the log decides.
        const replayed =
          idempotencyKey !== undefined && error instanceof IdempotencyMismatch
            ? await this.#replay(decideOn, idempotencyKey)
            : undefined;
        if (replayed !== undefined) return replayed;
        const streamMoved = error instanceof ConcurrencyConflict && error.details.subject === "stream-version";
        if (!streamMoved || attempt >= MAX_RETRIES) throw error;
        await this.refresh();
      }
    }
  }

  /**
   * The original events of a keyed write already in the log, when this command is its retry: decided
   * again on the state it was decided on (the log before the key's first event, so a trim's basis and
   * stats come out the same in any process) and sent to the store, which compares the batch's content
   * hash and returns the original result, or throws IdempotencyMismatch. Undefined when the key is unused.
   */
  async #replay(
    decideOn: (state: SessionState) => DomainEvent[],
    idempotencyKey: string,
  ): Promise<StoredEvent[] | undefined> {
    const log = await this.#ctx.store.readStream(this.id);
    const first = log.find((e) => e.idempotencyKey === idempotencyKey);
    if (first === undefined) return undefined;
    let events: DomainEvent[];
    try {
      events = decideOn(foldEvents(initialState(this.id), log.slice(0, first.seq - 1)));
    } catch {
      // The original was decided on that state: a command refused there is not the same content.
      throw new IdempotencyMismatch(this.id, idempotencyKey);
    }
    // Exact version: the key is checked first, so this replays or mismatches, and can never append.
    const result = await this.#ctx.store.append(this.id, events, {
      expectedVersion: first.seq === 1 ? "no-stream" : first.seq - 1,
      idempotencyKey,
    });
    return this.#applied(result);
  }

  /** Folds what an append returned (re-reading the stream when it replayed an earlier write) and snapshots. */
  async #applied(result: AppendResult): Promise<StoredEvent[]> {
    if (result.replayed) await this.refresh();
    else foldEvents(this.#state, result.events);
    await this.#maybeSnapshot();
    return result.events;
  }

  async #maybeSnapshot(): Promise<void> {
    if (this.#state.lastSeq - this.#snapshotSeq < this.#ctx.snapshotEvery) return;
    this.#snapshotSeq = this.#state.lastSeq;
    await saveSnapshot(this.#ctx.store, this.#state, this.#ctx.onSnapshotError);
  }
}
