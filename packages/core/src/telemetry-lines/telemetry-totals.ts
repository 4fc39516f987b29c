import { definedFields } from "../defined-fields.ts";
import { ValidationError } from "../errors.ts";
import { describeIssues } from "../input/describe-issues.ts";
import {
  type RunningTotals,
  TELEMETRY_VERSION,
  type TelemetryLine,
  TelemetryLineSchema,
  type TelemetryPass,
} from "./telemetry-line.ts";

/**
 * Running per-session totals (passes, tokens saved, failures): turns each pass into its line, stamped
 * with its session's totals so far. Shared by the live recorder and the log projection.
 */
export class TelemetryTotals {
  readonly #bySession = new Map<string, RunningTotals>();

  /** The totals of `sessionId` so far (zeros before its first pass). */
  of(sessionId: string): RunningTotals {
    return { ...(this.#bySession.get(sessionId) ?? { passes: 0, tokensSaved: 0, failures: 0 }) };
  }

  /**
   * Counts one pass and returns its validated line. Only the named fields are copied, so nothing else
   * on `pass` can reach the line; ValidationError (and nothing counted) on impossible numbers.
   */
  add(pass: TelemetryPass): TelemetryLine {
    const before = this.of(pass.sessionId);
    const totals: RunningTotals = {
      passes: before.passes + 1,
      tokensSaved: before.tokensSaved + pass.tokensBefore - pass.tokensAfter,
      failures: before.failures + (pass.outcome === "failed" ? 1 : 0),
    };
    const raw = {
      v: TELEMETRY_VERSION,
      ts: pass.ts ?? new Date().toISOString(),
      sessionId: pass.sessionId,
      kind: pass.kind,
      mode: pass.mode,
      outcome: pass.outcome,
      tokensBefore: pass.tokensBefore,
      tokensAfter: pass.tokensAfter,
      delta: pass.tokensAfter - pass.tokensBefore,
      exchangeTokens: pass.exchangeTokens,
      rollingSummaryTokens: pass.rollingSummaryTokens,
      durationMs: pass.durationMs,
      thresholdOccupancy: occupancy(pass.tokensAfter, pass.threshold),
      failureReason: pass.failureReason,
      precompact: pass.precompact,
      precompactMiss: pass.precompactMiss,
      candidateAgeMs: roundMs(pass.candidateAgeMs),
      savedMs: roundMs(pass.savedMs),
      wastedMs: roundMs(pass.wastedMs),
      totals,
    };
    const parsed = TelemetryLineSchema.safeParse(definedFields(raw));
    if (!parsed.success) {
      throw new ValidationError("invalid telemetry pass", describeIssues(parsed.error), { cause: parsed.error });
    }
    this.#bySession.set(pass.sessionId, totals);
    return parsed.data;
  }
}

function occupancy(tokens: number, threshold: number | undefined): number | undefined {
  if (threshold === undefined || threshold <= 0) return undefined;
  return Math.round((tokens / threshold) * 10_000) / 10_000;
}

function roundMs(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.round(ms * 1_000) / 1_000;
}
