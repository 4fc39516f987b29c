import { z } from "zod";
import { CompactionModeSchema, FailureReasonSchema } from "../events/event-data.ts";

/** The version of the telemetry line shape; bump it when the shape changes. */
export const TELEMETRY_VERSION = 1;

/**
 * What a pass did. Micro passes: absorbed (an exchange folded into the rolling summary), defragged
 * (the rolling summary rewritten), skipped, failed, noop. Batch passes map CompactOutcome.status onto the
 * same field: compacted (a supersede committed), skipped (the policy planned nothing), failed.
 */
export const TelemetryOutcomeSchema = z.enum(["absorbed", "defragged", "compacted", "skipped", "failed", "noop"]);
/** What a pass did. */
export type TelemetryOutcome = z.infer<typeof TelemetryOutcomeSchema>;

/** Which executor ran the pass: the per-turn micro-compactor or a batch compact(). */
export const TelemetryKindSchema = z.enum(["micro", "batch"]);
/** Which executor ran the pass. */
export type TelemetryKind = z.infer<typeof TelemetryKindSchema>;

const count = z.number().int().nonnegative();

/** Whether a batch compaction used its background pre-compaction candidate. */
export const PrecompactUseSchema = z.enum(["hit", "miss"]);

/** Why a due summary could not use a candidate: a reason class, never its detail text. */
export const PrecompactMissReasonSchema = z.enum([
  "no-candidate",
  "prefix-changed",
  "span-changed",
  "summarizer-changed",
  "system-prompt-changed",
  "handed-off",
  "other-session",
  "delta-failed",
  "view-moved",
]);
/** Why a due summary could not use a candidate. */
export type PrecompactMissReason = z.infer<typeof PrecompactMissReasonSchema>;

/** Running totals of one session up to and including a line, so a run can be read off its last line. */
export const RunningTotalsSchema = z.strictObject({
  passes: count,
  /** Σ (tokensBefore − tokensAfter) over the session's passes so far. */
  tokensSaved: z.number().int(),
  failures: count,
});
/** Running totals of one session. */
export type RunningTotals = z.infer<typeof RunningTotalsSchema>;

/**
 * One content-free telemetry line per pass. Strict: an unknown key is rejected, so no transcript text can
 * ride along. `delta` is tokensAfter − tokensBefore (negative when tokens were reclaimed); `mode` is absent
 * when the pass chose none (a skipped batch pass); `thresholdOccupancy` is tokensAfter / threshold. A batch
 * pass that ran with pre-compaction may carry its outcome (`precompact`, `precompactMiss`) and timings.
 */
export const TelemetryLineSchema = z.strictObject({
  v: z.literal(TELEMETRY_VERSION),
  ts: z.iso.datetime({ offset: true }),
  sessionId: z.string().min(1),
  kind: TelemetryKindSchema,
  mode: CompactionModeSchema.optional(),
  outcome: TelemetryOutcomeSchema,
  tokensBefore: count,
  tokensAfter: count,
  delta: z.number().int(),
  exchangeTokens: count.optional(),
  rollingSummaryTokens: count.optional(),
  durationMs: z.number().nonnegative().optional(),
  thresholdOccupancy: z.number().nonnegative().optional(),
  failureReason: FailureReasonSchema.optional(),
  /** Background pre-compaction (optional, absent from older lines): the candidate used, or missed and why. */
  precompact: PrecompactUseSchema.optional(),
  precompactMiss: PrecompactMissReasonSchema.optional(),
  /** A hit's candidate age at use. */
  candidateAgeMs: z.number().nonnegative().optional(),
  /** A hit's synchronous time saved: a cold compaction of the same view − the hit's commit (may be negative). */
  savedMs: z.number().optional(),
  /** A miss's background summarization time thrown away. */
  wastedMs: z.number().nonnegative().optional(),
  totals: RunningTotalsSchema,
});
/** One content-free telemetry line per pass. */
export type TelemetryLine = z.infer<typeof TelemetryLineSchema>;

/**
 * The facts of one pass, as an executor knows them: the line minus what is derived (v, delta, occupancy,
 * totals). `threshold` is the compaction threshold the pass ran under, when known.
 */
export interface TelemetryPass {
  sessionId: string;
  kind: TelemetryKind;
  mode?: TelemetryLine["mode"];
  outcome: TelemetryOutcome;
  tokensBefore: number;
  tokensAfter: number;
  exchangeTokens?: number;
  rollingSummaryTokens?: number;
  durationMs?: number;
  failureReason?: TelemetryLine["failureReason"];
  precompact?: TelemetryLine["precompact"];
  precompactMiss?: TelemetryLine["precompactMiss"];
  candidateAgeMs?: number;
  savedMs?: number;
  wastedMs?: number;
  threshold?: number;
  /** ISO time of the pass (default: now). */
  ts?: string;
}
