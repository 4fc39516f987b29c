import { definedFields } from "../defined-fields.ts";
import type { CompactionMode, MessagesSuperseded, StoredEvent } from "../events/index.ts";
import { evolve } from "../session/evolve.ts";
import { initialState, type SessionState } from "../session/session-state.ts";
import type { TelemetryLine, TelemetryOutcome, TelemetryPass } from "./telemetry-line.ts";
import { TelemetryTotals } from "./telemetry-totals.ts";

/** Options of the log projection: the compaction threshold, for `thresholdOccupancy`. */
export interface TelemetryFromLogOptions {
  threshold?: number;
}

const MICRO_MODES: ReadonlySet<CompactionMode> = new Set(["micro", "defrag"]);

/** Supersedes that are not compaction passes: trims made by the append itself, and an imported transcript's own compaction. */
const NOT_PASSES: ReadonlySet<CompactionMode> = new Set(["trim", "import"]);

/**
 * Projects one session's stored events onto telemetry lines: a line per supersede event (every mode:
 * micro → absorbed, defrag → defragged, any other but trim and import → a compacted batch pass) and per
 * compaction.failed.
 * Skipped and noop passes write nothing to the log, so they never appear here (nor in `totals.passes`).
 */
export function telemetryFromLog(
  events: Iterable<StoredEvent>,
  options: TelemetryFromLogOptions = {},
): TelemetryLine[] {
  const totals = new TelemetryTotals();
  const lines: TelemetryLine[] = [];
  let state: SessionState | undefined;
  for (const event of events) {
    state ??= initialState(event.sessionId);
    const ts = new Date(event.occurredAt).toISOString();
    const threshold = options.threshold === undefined ? {} : { threshold: options.threshold };
    if (event.type === "messages.superseded" && !NOT_PASSES.has(event.data.mode)) {
      lines.push(totals.add({ ...supersedePass(state, event.data), sessionId: state.sessionId, ts, ...threshold }));
    } else if (event.type === "compaction.failed") {
      const { mode, reason } = event.data;
      lines.push(
        totals.add({
          sessionId: state.sessionId,
          kind: MICRO_MODES.has(mode) ? "micro" : "batch",
          mode,
          outcome: "failed",
          tokensBefore: state.liveTokens,
          tokensAfter: state.liveTokens,
          failureReason: reason,
          ts,
          ...threshold,
        }),
      );
    }
    evolve(state, event);
  }
  return lines;
}

/**
 * The pass a supersede event records, read against the state before it. A micro pass's exchange tokens
 * are its live targets other than the previous rolling summary; its rolling summary tokens, the new marker's.
 */
function supersedePass(state: SessionState, data: MessagesSuperseded): Omit<TelemetryPass, "sessionId"> {
  const { mode, stats } = data;
  const base = {
    mode,
    tokensBefore: stats.tokensBefore,
    tokensAfter: stats.tokensAfter,
    ...definedFields({ durationMs: stats.durationMs }),
  };
  // A precompact supersede is a pre-compaction hit (its timings are known only to the live recorder).
  if (mode === "precompact") return { ...base, kind: "batch", outcome: "compacted", precompact: "hit" };
  if (!MICRO_MODES.has(mode)) return { ...base, kind: "batch", outcome: "compacted" };
  const targets = new Set(data.targets);
  const summaries = data.replacements.filter((r) => r.kind === "rolling-summary");
  const outcome: TelemetryOutcome = mode === "micro" ? "absorbed" : "defragged";
  const exchangeTokens = state.live
    .filter((e) => targets.has(e.message.id) && e.placedBy?.kind !== "rolling-summary")
    .reduce((n, e) => n + e.tokens, 0);
  return {
    ...base,
    kind: "micro",
    outcome,
    ...(mode === "micro" ? { exchangeTokens } : {}),
    ...(summaries.length === 0 ? {} : { rollingSummaryTokens: summaries.reduce((n, r) => n + r.tokens, 0) }),
  };
}
