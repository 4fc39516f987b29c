import {
  type Clock,
  checkId,
  checkOptionKeys,
  checkOptions,
  definedFields,
  EncodingSchema,
  type EraseOptions,
  type ErasureResult,
  formatError,
  IdSchema,
  InvariantViolation,
  initialState,
  isPalimpsestError,
  NotFoundError,
  type OptionShape,
  OptionValues,
  optionsSchema,
  type PurgeOptions,
  type PurgeResult,
  parseInput,
  type RuntimeStore,
  type SessionStarted,
  SessionStartedSchema,
  type SessionSummary,
  type TokenCounter,
  ValidationError,
} from "@palimpsest/core";
import { encodingForModel } from "@palimpsest/core/tokenizer";
import { uuidv7 } from "uuidv7";
import { z } from "zod";
import { type AfterTurnPlan, afterTurnStep } from "../compaction/after-turn-step.ts";
import { type CompactOutcome, compactSession } from "../compaction/compact.ts";
import { resolveProfile } from "../compaction/compaction-budget.ts";
import { COMPACTION_SETTINGS_SHAPE, type CompactionSettings } from "../compaction/compaction-settings.ts";
import type { MicroBatchOptions } from "../compaction/micro-batch.ts";
import { microScheduleOf } from "../compaction/micro-schedule.ts";
import { policyFor } from "../compaction/policies/registry.ts";
import { PrecompactionScheduler } from "../precompact/precompact-scheduler.ts";
import { PRECOMPACT_SETTINGS_SHAPE, type PrecompactSettings } from "../precompact/precompact-settings.ts";
import { BackgroundWrites } from "../runtime/background-writes.ts";
import { DEFAULT_CONTENTION_TIMEOUT_MS } from "../runtime/contention.ts";
import { loadSession } from "../runtime/load-session.ts";
import type { MessageInput } from "../runtime/message-input.ts";
import { Session, type SessionContext } from "../runtime/session.ts";
import { sessionThreshold } from "../telemetry/session-threshold.ts";
import type { TelemetryRecorder } from "../telemetry/telemetry-recorder.ts";
import { type ForkOptions, forkSession } from "./fork.ts";
import {
  checkHandOffOptions,
  checkSuccessorId,
  type HandOffOptions,
  handOffSession,
  type SuccessorRuntime,
} from "./hand-off-session.ts";
import { Handoffs } from "./queued-handoffs.ts";
import { sessionByIdOrName } from "./session-by-name.ts";

export type { ForkOptions } from "./fork.ts";
export type { HandOffOptions } from "./hand-off-session.ts";

/** How a new session starts; everything is optional. */
export interface StartSessionOptions extends Partial<Omit<SessionStarted, "encoding">> {
  /** The new session's id (default: a new UUIDv7); an id the store already has is refused. */
  sessionId?: string;
  /** The tokenizer its messages are counted with (default: the one the model's family uses). */
  encoding?: SessionStarted["encoding"];
}

/**
 * StartSessionOptions as checked before anything reads them (a numeric model, a malformed id: VALIDATION):
 * the event's data with its id and tokenizer optional, and its nested objects strict (the event's schema
 * passes over unknown keys, so a later version's fields still read; here a misspelt
 * `settings.microcompact` would be dropped and leave the session opted in).
 */
const StartSessionOptionsSchema = SessionStartedSchema.extend({
  sessionId: IdSchema.optional(),
  encoding: EncodingSchema.optional(),
  parent: z.strictObject(SessionStartedSchema.shape.parent.unwrap().shape).optional(),
  source: z.strictObject(SessionStartedSchema.shape.source.unwrap().shape).optional(),
  settings: z.strictObject(SessionStartedSchema.shape.settings.unwrap().shape).optional(),
});

/**
 * Refuses `precompact` without `compaction.auto: true` (VALIDATION at `precompact`): its jobs start from
 * the compaction check after each turn, so without it none would ever run.
 */
export function checkPrecompactNeedsAuto(fn: string, options: Pick<RuntimeOptions, "precompact" | "compaction">): void {
  const { precompact, compaction } = options;
  if (precompact === undefined || precompact.enabled === false || compaction?.auto === true) return;
  throw new ValidationError(
    `${fn}'s precompact needs compaction.auto: true: its jobs start from the compaction check after each turn, so none would run`,
    ["precompact: given without compaction.auto"],
    { path: "precompact" },
  );
}

/** Where the runtime gets its store and tokenizers. */
export interface RuntimeDeps {
  store: RuntimeStore;
  /**
   * The tokenizer of an encoding; called when a session is started or resumed (to load it ahead of the first
   * count) and on its counts, so it should cache its result.
   */
  counterFor: (encoding: SessionStarted["encoding"]) => Promise<TokenCounter>;
  /**
   * Events between a session's snapshots (default 500); more for a view past 250K tokens, in proportion
   * to it, so snapshots come less often as they grow dearer. A batch compaction snapshots at once.
   */
  snapshotEvery?: number;
  /** Told of a snapshot that could not be written (a cache: the session goes on, a resume replays more). */
  onSnapshotError?: (error: unknown) => void;
  /** How sessions compact: policy, profile, summarizer, automatic checks, trimming on append. */
  compaction?: CompactionSettings;
  /** Told the outcome of every automatic compaction check that did something (or failed). */
  onAutoCompaction?: (outcome: CompactOutcome, session: Session) => void;
  /** Told of an after-turn compaction check that failed (default: one line on stderr); the turn stays committed. */
  onAfterTurnError?: (error: unknown, session: Session) => void;
  /** Where the after-turn passes (batch and micro) write their content-free telemetry lines. */
  telemetry?: TelemetryRecorder;
  /**
   * Background pre-compaction (off unless given; `{}` turns it on with its defaults): after completed
   * turns above a soft threshold, the stable prefix is summarized ahead of time, and the automatic
   * compaction then commits only the delta. Needs `compaction.auto`.
   */
  precompact?: Partial<PrecompactSettings>;
  /** The clock of hand-off leases (epoch ms); default the database's own. For tests of lease expiry. */
  handoffClock?: Clock;
  /**
   * How long (ms) a write goes on re-reading the session and deciding again while other writers (other
   * processes, other handles) commit to it first, before it gives up with CONCURRENCY_CONFLICT (reason
   * `contention`); default 30,000. Pauses between attempts are jittered and grow (see docs/library.md).
   */
  contentionTimeoutMs?: number;
}

/** The options of RuntimeDeps a caller of openPalimpsest gives (the rest are the runtime's wiring). */
export type RuntimeOptions = Omit<RuntimeDeps, "store" | "counterFor" | "handoffClock">;

/** Every key of RuntimeOptions with its value's schema (checkOptions): openPalimpsest's, and the constructor's. */
export const RUNTIME_OPTION_SHAPE: OptionShape<RuntimeOptions> = {
  snapshotEvery: z.custom<number>(
    (value) => value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && (value as number) >= 1),
    "expected a whole number of events, 1 or more, or Infinity (never)",
  ),
  onSnapshotError: OptionValues.fn,
  compaction: optionsSchema(COMPACTION_SETTINGS_SHAPE),
  onAutoCompaction: OptionValues.fn,
  onAfterTurnError: OptionValues.fn,
  telemetry: OptionValues.object,
  precompact: optionsSchema(PRECOMPACT_SETTINGS_SHAPE),
  contentionTimeoutMs: z.custom<number>(
    (value) => typeof value === "number" && value >= 0,
    "expected a number of ms, 0 or more (Infinity: no limit)",
  ),
};

/** RUNTIME_OPTION_SHAPE with the wiring's keys. */
const RUNTIME_DEPS_SHAPE: OptionShape<RuntimeDeps> = {
  ...RUNTIME_OPTION_SHAPE,
  store: OptionValues.object,
  counterFor: OptionValues.fn,
  handoffClock: OptionValues.fn,
};

/** The session runtime an agent uses: start, resume and hand off sessions over one store. */
export class Palimpsest {
  readonly store: RuntimeStore;
  /** The background pre-compaction scheduler (its stats: hits, misses, time saved), when it is on. */
  readonly precompaction: PrecompactionScheduler | undefined;
  /** Claimable hand-offs across processes: request, claim under a lease, complete or fail. */
  readonly handoffs: Handoffs;
  /** How long (ms) a write re-reads and decides again while other writers move its session (RuntimeDeps). */
  readonly contentionTimeoutMs: number;
  readonly #deps: RuntimeDeps;
  /** The sessions' snapshots, written off their appends' path. */
  readonly #background = new BackgroundWrites();
  /** What the hand-off path uses of this runtime (successors start with their view in one append). */
  readonly #successorRuntime: SuccessorRuntime;

  /** Wraps a store; see openPalimpsest for opening one from a URL. */
  constructor(deps: RuntimeDeps) {
    checkOptions("Palimpsest", deps, RUNTIME_DEPS_SHAPE);
    for (const wiring of ["store", "counterFor"] as const) {
      if (deps[wiring] === undefined) {
        throw new ValidationError(`Palimpsest needs ${wiring}`, [`${wiring}: missing`], { path: wiring });
      }
    }
    checkPrecompactNeedsAuto("Palimpsest", deps);
    this.store = deps.store;
    this.#deps = deps;
    this.contentionTimeoutMs = deps.contentionTimeoutMs ?? DEFAULT_CONTENTION_TIMEOUT_MS;
    this.precompaction =
      deps.precompact === undefined
        ? undefined
        : new PrecompactionScheduler({
            candidates: deps.store,
            precompact: deps.precompact,
            ...definedFields({ compaction: deps.compaction }),
          });
    this.#successorRuntime = {
      store: this.store,
      resume: (sessionId) => this.resume(sessionId),
      startSessionWith: (options, messages, idempotencyKey) => this.#start(options, messages, idempotencyKey),
    };
    const queue = deps.store.handoffQueue;
    const runtime = {
      resume: (sessionId: string) => this.resume(sessionId),
      handOff: (from: Session, options: HandOffOptions) => this.#handOff(from, options),
      checkSuccessorId: (fromId: string, toSessionId: string) =>
        checkSuccessorId(this.#successorRuntime, fromId, toSessionId),
    };
    this.handoffs = new Handoffs(runtime, deps.handoffClock === undefined ? queue : queue.withClock(deps.handoffClock));
  }

  /** Starts a new session; the tokenizer follows the model family unless given. */
  async startSession(options: StartSessionOptions = {}): Promise<Session> {
    return this.#start(options);
  }

  /** Starts a session, with `messages` in the same append as its start when given (see Session.startWith). */
  async #start(
    options: StartSessionOptions,
    messages?: readonly MessageInput[],
    idempotencyKey?: string,
  ): Promise<Session> {
    checkOptionKeys("startSession", options ?? {}, StartSessionOptionsSchema.shape);
    for (const key of ["settings", "parent", "source"] as const) {
      const nested = options?.[key];
      const shape = StartSessionOptionsSchema.shape[key].unwrap().shape;
      if (typeof nested === "object" && nested !== null) checkOptionKeys(`startSession ${key}`, nested, shape, key);
    }
    const {
      sessionId = uuidv7(),
      encoding,
      ...rest
    } = parseInput(StartSessionOptionsSchema, options, "session options");
    if (rest.parent !== undefined && (await this.store.getSession(rest.parent.sessionId)) === undefined) {
      // A link to no session (or to another tenant's) would put a lineage in the audit that is not there.
      throw new ValidationError(
        `startSession's parent ${rest.parent.sessionId} is no session of this store`,
        [`parent.sessionId: ${rest.parent.sessionId}`],
        { path: "parent.sessionId" },
      );
    }
    const started: SessionStarted = { ...rest, encoding: encoding ?? encodingForModel(rest.model) };
    const session = new Session(this.#context(started), initialState(sessionId), 0);
    if (messages === undefined) await session.start(started);
    else await session.startWith(started, messages, idempotencyKey === undefined ? {} : { idempotencyKey });
    return session;
  }

  /**
   * Loads a session (from its snapshot plus newer events, or by replay) by id or, when no session has that
   * id, by name (as resolveSession: an imported or mirrored Claude Code session by its session id);
   * NotFoundError when neither names one, AmbiguousName (VALIDATION) listing the ids when several
   * sessions have that name.
   */
  async resume(idOrName: string): Promise<Session> {
    checkId(idOrName, "sessionId");
    let loaded = await loadSession(this.store, idOrName);
    if (loaded.state.started === undefined) {
      const named = await sessionByIdOrName(this.store, idOrName);
      if (named !== undefined && named !== idOrName) loaded = await loadSession(this.store, named);
    }
    const started = loaded.state.started;
    if (started === undefined) throw new NotFoundError("session", idOrName);
    return new Session(this.#context(started), loaded.state, loaded.snapshotSeq);
  }

  /**
   * The session `idOrName` names (by id or name, resumed), or a new one started with `options` under that
   * id when none has it; without `idOrName`, a new session. What an adapter does when a caller hands it a
   * session id that may or may not exist yet. Another process starting the same id first is fine: that
   * session is resumed.
   */
  async resumeOrStart(idOrName: string | undefined, options: StartSessionOptions = {}): Promise<Session> {
    if (idOrName === undefined) return this.startSession(options);
    try {
      return await this.resume(await this.resolveSession(idOrName));
    } catch (error) {
      if (!isPalimpsestError(error, "NOT_FOUND")) throw error;
    }
    try {
      return await this.startSession({ ...options, sessionId: idOrName });
    } catch (error) {
      const raced = isPalimpsestError(error, "INVARIANT_VIOLATED") && error.details.rule === "session-already-started";
      if (!raced) throw error;
      return this.resume(idOrName);
    }
  }

  /**
   * The id of the session `nameOrId` names: a session id names itself; otherwise it is a name, the
   * external id of the session's source (a Claude Code session id, a subagent's agent id, an SDK's
   * session id), and names the one session started with it (a hand-off successor takes no name: the name
   * stays its predecessor's). AmbiguousName (VALIDATION) listing the ids when several sessions have that
   * name, ValidationError for a malformed argument; NotFoundError when no session has that id or name.
   */
  async resolveSession(nameOrId: string): Promise<string> {
    checkId(nameOrId, "nameOrId");
    const id = await sessionByIdOrName(this.store, nameOrId);
    if (id === undefined) throw new NotFoundError("session", nameOrId);
    return id;
  }

  /**
   * Hands a session off to a successor: seals the old one (which then takes no more writes), then starts
   * the new one linked back to it, carrying the sealed view unless told not to. A hand-off cut short, or
   * that another process is finishing too, is finished by calling it again with the same `toSessionId`:
   * each step skips what was already done. Refused (`handoff-open`) while the session has an open queued
   * hand-off: that one is finished through `handoffs`, so a claimer's decision is never overtaken.
   */
  async handOff(from: Session, options: HandOffOptions = {}): Promise<Session> {
    checkHandOffOptions(options);
    const open = await this.store.handoffQueue.list({ sourceSessionId: from.id, open: true });
    if (open.length > 0) {
      const ids = open.map((h) => h.handoffId);
      throw new InvariantViolation(
        "handoff-open",
        `session ${from.id} has an open queued hand-off (${ids.join(", ")}); complete or fail it through runtime.handoffs`,
        { sessionId: from.id, ids },
      );
    }
    return this.#handOff(from, options);
  }

  /**
   * Forks a session (by id or name) at `atSeq`, `atTurn` or its end: a new session that starts with the
   * parent's view as it stood there, linked back as a `fork`; the two are independent from then on. An
   * agent tries an alternative on it, or a user edits an earlier message (fork before it, append the new
   * one). Forking again to the same `toSessionId` returns that fork.
   */
  async fork(sessionId: string, options: ForkOptions = {}): Promise<Session> {
    return forkSession(this.#successorRuntime, await this.resolveSession(sessionId), options);
  }

  /** The one hand-off path, of direct and queued hand-offs (see hand-off-session.ts). */
  #handOff(from: Session, options: HandOffOptions): Promise<Session> {
    return handOffSession(this.#successorRuntime, from, options);
  }

  /** The tokenizer of an encoding, for writers that decide events outside a Session (an import plans a whole session). */
  tokenCounter(encoding: SessionStarted["encoding"]): Promise<TokenCounter> {
    return this.#deps.counterFor(encoding);
  }

  /**
   * Erases the session's content for good (docs/erasure.md): its log keeps every event as a content-free
   * skeleton (ids, roles, token counts, compaction records) and ends with a session.erased event; its
   * snapshot, pre-compaction candidate and idempotency hashes go. Reads then show tombstones; writes are
   * refused (`session-erased`). Only this session: hand-off successors and subagent children are sessions
   * of their own (a successor holds a copy of the view it carried) and are erased by naming them.
   * NotFoundError for an unknown session; erasing again changes nothing (`erased: false`).
   */
  async erase(sessionId: string, options: EraseOptions = {}): Promise<ErasureResult> {
    checkId(sessionId, "sessionId");
    checkOptions("erase", options, { reason: OptionValues.text });
    const result = await this.store.erase(sessionId, options);
    this.precompaction?.cancel(sessionId); // a job still running cannot store its candidate: the save is refused
    return result;
  }

  /**
   * Rewrites the database relations that held session content, so that no copy of what the sessions
   * erased before it held stays in the database's files (docs/erasure.md): PostgreSQL's content tables
   * with VACUUM FULL, each in turn (its reads and writes wait while it is rewritten), SQLite's whole file
   * with VACUUM and its WAL emptied. Other sessions' writes wait and go on after it; run again, it
   * rewrites again. Reports each relation's size before and after and how long the purge held it.
   */
  async purgeErased(options: PurgeOptions = {}): Promise<PurgeResult> {
    return this.store.purgeErased(options);
  }

  /** The session catalogue, newest first. */
  async sessions(): Promise<SessionSummary[]> {
    return this.store.listSessions();
  }

  /**
   * Resolves once the writes this runtime's sessions left to the background so far (their snapshots,
   * which an append does not wait for) are done: before reading the store's snapshots directly.
   */
  settled(): Promise<void> {
    return this.#background.settled();
  }

  /** Stops background work, waits for the background writes (and takes no more) and closes the store. */
  async close(): Promise<void> {
    this.precompaction?.dispose();
    await this.#background.close();
    await this.store.close();
  }

  #context(started: SessionStarted): SessionContext {
    const { compaction, onSnapshotError } = this.#deps;
    this.#preloadCounter(started.encoding);
    const ctx: SessionContext = {
      store: this.store,
      counter: () => this.#deps.counterFor(started.encoding),
      snapshotEvery: this.#deps.snapshotEvery ?? 500,
      background: this.#background,
      contentionTimeoutMs: this.contentionTimeoutMs,
    };
    if (onSnapshotError !== undefined) ctx.onSnapshotError = onSnapshotError;
    if (compaction?.trimOnAppend === true) ctx.trimTokens = resolveProfile(compaction, started).trimTokens;
    if (compaction?.auto === true || compaction?.micro !== undefined) {
      ctx.afterTurn = (session) => this.#afterTurn(session, compaction);
    }
    return ctx;
  }

  /**
   * Starts loading the tokenizer a session counts in as the session is started or resumed, so that its first
   * append (in an agent, after a model call) finds it loaded: openPalimpsest loads o200k_base at open, but
   * cl100k_base (older OpenAI models: gpt-4, gpt-3.5) took a few hundred ms on a session's first count. A
   * failed load is the first count's to report (it asks counterFor again).
   */
  #preloadCounter(encoding: SessionStarted["encoding"]): void {
    try {
      this.#deps.counterFor(encoding).catch(() => undefined);
    } catch {
      // A counterFor that throws at once throws again at the session's first count, which reports it.
    }
  }

  /**
   * After a completed turn, the shared after-turn step (afterTurnStep): the batch policy when automatic
   * checks are on, else (or when it did not compact) micro passes as the policy schedules them, when
   * micro-compaction is on. Here: each pass writes a telemetry line (a batch check that found nothing to
   * do is not a pass and writes none), and a failure is reported, never thrown. Another process
   * compacting first is not an error: the pass plans again on the view it left (see compact).
   */
  async #afterTurn(session: Session, settings: CompactionSettings): Promise<void> {
    const { telemetry } = this.#deps;
    const threshold = telemetry === undefined ? undefined : { threshold: sessionThreshold(session, settings) };
    try {
      const onBatch = (outcome: CompactOutcome) => {
        if (outcome.status !== "skipped") {
          telemetry?.recordCompaction(session, outcome, threshold);
          this.#deps.onAutoCompaction?.(outcome, session);
        } else if (outcome.grows !== undefined) telemetry?.recordCompaction(session, outcome, threshold);
        if (outcome.status !== "compacted") this.precompaction?.onTurnCompleted(session);
      };
      const auto = { ...settings, trigger: "auto" as const };
      const { passes } = await afterTurnStep(session, {
        ...(settings.auto === true
          ? { batch: () => this.precompaction?.compact(session, auto) ?? compactSession(session, auto), onBatch }
          : {}),
        ...definedFields({ micro: microPasses(session, settings) }),
      });
      for (const pass of passes) telemetry?.recordMicro(session, pass.outcome, threshold);
    } catch (error) {
      // The turn is committed whatever happens here: a failed check must not make completeTurn reject.
      (this.#deps.onAfterTurnError ?? reportAfterTurnError)(error, session);
    }
  }
}

/** The default report of a failed after-turn check: one line on stderr, the cause chain included. */
function reportAfterTurnError(error: unknown, session: Session): void {
  process.stderr.write(
    `palimpsest: the compaction check after a turn of ${session.id} failed\n${formatError(error)}\n`,
  );
}

/** The micro passes the runtime's settings run after a turn, scheduled by the session's policy; undefined when off. */
function microPasses(session: Session, settings: CompactionSettings): AfterTurnPlan<CompactOutcome>["micro"] {
  if (settings.micro === undefined || settings.micro.enabled === false) return undefined;
  const policy = policyFor(settings, resolveProfile(settings, session.state.started));
  return { options: microOptions(settings), schedule: microScheduleOf(policy) };
}

/** The micro pass options implied by the runtime's compaction settings (the summarizer's prices for the batch gate). */
function microOptions(settings: CompactionSettings): MicroBatchOptions {
  const { profile, contextWindow, summarizer, summaryTimeoutMs, summarizerPrices, recallTool } = settings;
  return {
    ...settings.micro,
    ...definedFields({ profile, contextWindow, summarizer, summaryTimeoutMs, summarizerPrices, recallTool }),
  };
}
