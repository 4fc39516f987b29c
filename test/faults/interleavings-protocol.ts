import type { ReportedError } from "./fault-workload.ts";

/**
 * One operation of an interleaving, on a slot (a session the parent names for this interleaving):
 * append an exchange and complete its turn (automatic compaction), a forced policy compaction, an
 * explicit range compaction, a direct hand-off, a queued one requested or claimed and completed, or a
 * read (a fresh resume checked against the invariants).
 */
export type InterleavedOp =
  | { kind: "append"; slot: number; n: number }
  | { kind: "compact"; slot: number; policy: "summary" | "prune-first" }
  | { kind: "range"; slot: number }
  | { kind: "handoff"; slot: number; to: string }
  | { kind: "request"; slot: number; to: string }
  | { kind: "complete" }
  | { kind: "read"; slot: number };

/**
 * What the parent sends a worker: the slots' sessions and its operations, run one after another (a
 * worker runs the runs of several streams of interleavings at once, on disjoint sessions).
 */
export interface InterleavingRun {
  t: "run";
  id: number;
  /** The hand-off target of this run's queued hand-offs (one per stream of interleavings, so streams never meet). */
  target: string;
  slots: string[];
  ops: InterleavedOp[];
}

/** What an operation did: the writes it acknowledges, and the error it ended with, if any. */
export interface OpResult {
  op: InterleavedOp;
  session?: string;
  messages?: string[];
  turn?: string;
  compactions?: string[];
  handoff?: { from: string; to: string };
  /** A read's invariant problems (none expected). */
  problems?: string[];
  error?: ReportedError;
}

/** INVARIANT_VIOLATED rules a race between two writers may legitimately end in (anything else is a defect). */
export const RACE_RULES: ReadonlySet<string> = new Set([
  "session-handed-off", // the other worker sealed the session first
  "handoff-open", // a direct hand-off while the other worker's queued one is open
  "handoff-completing", // a hand-off whose completion the other worker began
]);

/**
 * Whether an error is one a race may end in: a claim another worker took over (its lease ran out under
 * load), a legitimate rule, or an explicit range (the caller's own precondition) compacted away by the
 * other worker. A conflict never is: the runtime re-reads and decides again, so none reaches the caller.
 */
export function isRaceError(error: ReportedError, op: InterleavedOp): boolean {
  if (error.code === "CLAIM_LOST") return true;
  if (error.code === "NOT_FOUND") return op.kind === "range";
  if (error.code === "INVARIANT_VIOLATED") return error.rule !== undefined && RACE_RULES.has(error.rule);
  return false;
}
