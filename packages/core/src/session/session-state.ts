import type { z } from "zod";
import type {
  CompactionFailed,
  CompactionMode,
  ReplacementKindSchema,
  SessionStarted,
  TurnCompleted,
} from "../events/index.ts";
import type { Message } from "../messages/message.ts";

/** A message in the active view, with the token count measured when it entered the log. */
export interface LiveEntry {
  message: Message;
  tokens: number;
  /** Seq of the event that put it in the view (its append, or the compaction that placed it). */
  seq: number;
  /** Set on messages a compaction placed: which compaction and what kind of replacement. */
  placedBy?: { compactionId: string; kind: z.infer<typeof ReplacementKindSchema> };
}

/** The last compaction that changed the view, as resume and telemetry need it. */
export interface LastCompaction {
  compactionId: string;
  seq: number;
  mode: string;
  targets: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** A committed compaction as the anti-thrash check reads it (`at`: epoch milliseconds of the event). */
export interface RecentCompaction {
  mode: CompactionMode;
  tokensBefore: number;
  tokensAfter: number;
  at: number;
}

/** A failed compaction as the anti-thrash check reads it. */
export interface RecentFailure {
  reason: CompactionFailed["reason"];
  at: number;
  retryAfterMs?: number;
  configKey?: string;
}

/**
 * Micro-compaction failures since the last batch compaction, so a fresh process retries and skips exactly
 * where the last one stopped. Arrays (not maps) so snapshots stay plain JSON.
 */
export interface MicroFailures {
  /** One entry per failed absorb attempt: the id of the exchange's assistant message. */
  failedExchanges: string[];
  /** Rolling-summary markers a defrag did not shrink (or failed on): no defrag until a newer marker replaces them. */
  staleDefrags: string[];
}

/** Compaction modes that reset the micro-compaction state (the batch compactions). */
export const BATCH_MODES: ReadonlySet<CompactionMode> = new Set(["summary", "prune", "precompact"]);

/** How many recent compactions and failures the state keeps for the anti-thrash check. */
export const RECENT_LIMIT = 8;

/**
 * The fold of one session's log: the live view and what the decider needs to keep the invariants.
 * Plain data, so it can be snapshotted; `evolve` updates it in place for speed on long logs. Nothing in it
 * grows with the history once compactions bound the view: the ids that must stay unique across the whole
 * log are its keys (log-keys.ts), kept by the store and given to the decider, not carried here.
 */
export interface SessionState {
  sessionId: string;
  started: SessionStarted | undefined;
  lastSeq: number;
  /** Number of compactions committed: the compare-and-set token of supersede commits. */
  viewVersion: number;
  live: LiveEntry[];
  liveTokens: number;
  /** Live entries a compaction placed as a summary or rolling-summary marker (lets scans for them stop early). */
  liveSummaries: number;
  /** Tool calls of the newest assistant message still waiting for results: call id → message id. */
  pendingCalls: Map<string, string>;
  lastCompaction: LastCompaction | undefined;
  /** Committed compactions by mode (trims are compactions too, but do not shrink the head). */
  compactionsByMode: Partial<Record<CompactionMode, number>>;
  /** The last RECENT_LIMIT compactions and failures, oldest first (micro and defrag failures are kept in `micro`). */
  recentCompactions: RecentCompaction[];
  recentFailures: RecentFailure[];
  failures: number;
  micro: MicroFailures;
  lastTurn: TurnCompleted | undefined;
  /** When the last turn completed (epoch ms, from its event): the previous request's time for the cost-optimal policy. */
  lastTurnAt: number | undefined;
  turns: number;
  handedOffTo: string | undefined;
  /** When the session's content was erased (its session.erased event); it takes no more writes. */
  erasedAt: string | undefined;
}

/** The state of a session with no events. */
export function initialState(sessionId: string): SessionState {
  return {
    sessionId,
    started: undefined,
    lastSeq: 0,
    viewVersion: 0,
    live: [],
    liveTokens: 0,
    liveSummaries: 0,
    pendingCalls: new Map(),
    lastCompaction: undefined,
    compactionsByMode: {},
    recentCompactions: [],
    recentFailures: [],
    failures: 0,
    micro: { failedExchanges: [], staleDefrags: [] },
    lastTurn: undefined,
    lastTurnAt: undefined,
    turns: 0,
    handedOffTo: undefined,
    erasedAt: undefined,
  };
}

/**
 * A copy of `state` that `evolve` can change without touching the original: every collection is
 * copied, the entries in them (immutable messages) are shared.
 */
export function cloneState(state: SessionState): SessionState {
  return {
    ...state,
    live: [...state.live],
    pendingCalls: new Map(state.pendingCalls),
    compactionsByMode: { ...state.compactionsByMode },
    recentCompactions: [...state.recentCompactions],
    recentFailures: [...state.recentFailures],
    micro: { failedExchanges: [...state.micro.failedExchanges], staleDefrags: [...state.micro.staleDefrags] },
  };
}
