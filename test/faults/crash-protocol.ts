import { FaultRandom } from "./fault-random.ts";
import type { WorkerKeys } from "./worker-keys.ts";

/**
 * Where a crash child is killed: `delay` ms after it is ready (anywhere in its burst of steps), at the
 * `nth` time it reaches hook `name` (parked there, or killed a moment later while the write runs), or
 * never (`finish`: the last child retries the interrupted step and exits).
 */
export type KillPlan =
  | { kind: "delay"; ms: number }
  | { kind: "hook"; name: string; nth: number; park: boolean }
  | { kind: "finish" };

/** What the parent tells a crash child to do. */
export interface CrashConfig {
  url: string;
  seed: number;
  /** Names this run's sessions and hand-off target (runs never meet). */
  tag: string;
  /** The first step to run: the one a kill interrupted, or the one after the last finished. */
  step: number;
  /** How many steps to run before reporting idle (the parent then kills). */
  steps: number;
  /** Each lane's current session (null: not started yet). */
  lanes: (string | null)[];
  /** How many children ran before this one. */
  generation: number;
  plan: KillPlan;
  /** Keep the audit read models current in the background (AuditReadModels.follow). */
  follow: boolean;
  /** Encrypt content with this local keyring (the parent checks through it too). */
  keys?: WorkerKeys;
}

/** What one acknowledgement says is done (each part only when it applies). */
export interface CrashEffect {
  messages?: { session: string; ids: string[] };
  turn?: { session: string; turnId: string };
  /** Compactions committed in `session`. */
  compactions?: string[];
  session?: string;
  handoff?: { from: string; to: string };
  /** The lane's session from now on. */
  lane?: { lane: number; session: string };
}

/** How a retried append of a committed one went: replayed, the contract (anything else fails the child). */
export type RetryOutcome = "replayed";

/** What a step does: chosen from the run's seed and the step number alone, so a retry does the same. */
export interface CrashStep {
  kind: "start" | "append" | "compact" | "range" | "handoff" | "audit";
  lane: number;
  policy: "summary" | "prune-first";
  queued: boolean;
}

/** The step `step` of the run seeded `seed` on these lanes. */
export function crashStep(seed: number, step: number, lanes: readonly (string | null)[]): CrashStep {
  const random = new FaultRandom((seed ^ Math.imul(step, 0x9e3779b1)) >>> 0);
  const lane = random.int(0, lanes.length - 1);
  const kind = random.weighted<CrashStep["kind"]>([
    ["append", 45],
    ["compact", 12],
    ["range", 10],
    ["handoff", 15],
    ["audit", 8],
  ]);
  return {
    kind: lanes[lane] === null ? "start" : kind,
    lane,
    policy: random.next() < 0.5 ? "summary" : "prune-first",
    queued: random.next() < 0.6,
  };
}

/** The hooks a kill plan may stop at, and whether it parks there (kill before the write) or not (kill during it). */
export const CRASH_HOOKS: readonly { name: string; park: boolean }[] = [
  { name: "summarizing", park: true },
  { name: "append:messages.superseded", park: true },
  { name: "append:messages.superseded", park: false },
  { name: "append:message.appended", park: false },
  { name: "append:turn.completed", park: false },
  { name: "append:compaction.failed", park: false },
  { name: "committed:append", park: true },
  { name: "snapshot", park: false },
  { name: "append:session.handed-off", park: false },
  { name: "append:session.started", park: false },
  { name: "handoff:start-completion", park: true },
  { name: "handoff:mark-completed", park: false },
  { name: "audit-write", park: false },
];
