import {
  definedFields,
  type RunningTotals,
  type TelemetryLine,
  type TelemetryPass,
  TelemetryTotals,
} from "@palimpsest/core";
import type { CompactOutcome } from "../compaction/compact.ts";
import type { MicroOutcome } from "../compaction/micro-compact.ts";
import type { PrecompactOutcome } from "../precompact/compact-with-candidate.ts";
import type { Session } from "../runtime/session.ts";
import { stderrJsonSink, type TelemetrySink } from "./telemetry-sink.ts";

/** Options of a recorder: where its lines go (default: JSON lines on stderr). */
export interface TelemetryRecorderOptions {
  sink?: TelemetrySink;
}

/** What a recorder may be told of a batch pass's pre-compaction: content-free (a reason class, timings). */
export type PrecompactTelemetry = Pick<
  TelemetryPass,
  "precompact" | "precompactMiss" | "candidateAgeMs" | "savedMs" | "wastedMs"
>;

/**
 * The pre-compaction fields of a line from a scheduler's compaction outcome: a hit with its candidate age
 * and time saved, or a miss with its reason class (never the detail text).
 */
function precompactTelemetry(outcome: PrecompactOutcome): PrecompactTelemetry {
  const use = outcome.precompact;
  if (use === undefined) return {};
  if (use.type === "hit") return { precompact: "hit", candidateAgeMs: use.candidateAgeMs, savedMs: use.savedMs };
  return { precompact: "miss", precompactMiss: use.reason, wastedMs: use.wastedMs };
}

/**
 * Keeps running per-session totals and writes one content-free line per compaction pass to its sink.
 * Never throws into the caller: a pass that cannot be recorded or a failing sink is reported once on stderr.
 */
export class TelemetryRecorder {
  readonly #sink: TelemetrySink;
  readonly #totals = new TelemetryTotals();
  #reported = false;

  /** A recorder writing to `options.sink`, or to stderr. */
  constructor(options: TelemetryRecorderOptions = {}) {
    this.#sink = options.sink ?? stderrJsonSink();
  }

  /** Records one pass from its fields (what the micro executor calls); its line, or undefined if it was invalid. */
  record(pass: TelemetryPass): TelemetryLine | undefined {
    let line: TelemetryLine;
    try {
      line = this.#totals.add(pass);
    } catch (error) {
      this.#report(error);
      return undefined;
    }
    try {
      const written = this.#sink.write(line);
      if (written instanceof Promise) written.catch((error: unknown) => this.#report(error));
    } catch (error) {
      this.#report(error);
    }
    return line;
  }

  /**
   * Records a batch compact() outcome: compacted, skipped and failed become the line's outcome. Tokens and
   * duration come from the committed event (as the log projection reads them); a skip or failure holds the live tokens.
   * A scheduler's outcome (PrecompactOutcome) adds its pre-compaction use (a hit's saved ms, a miss's
   * wasted ms); `options.precompact` overrides it.
   */
  recordCompaction(
    session: Session,
    outcome: CompactOutcome | PrecompactOutcome,
    options: { threshold?: number; precompact?: PrecompactTelemetry } = {},
  ): TelemetryLine | undefined {
    const precompact = { ...precompactTelemetry(outcome), ...options.precompact };
    const base = {
      ...precompact,
      sessionId: session.id,
      kind: "batch" as const,
      tokensBefore: session.state.liveTokens,
      tokensAfter: session.state.liveTokens,
      ...definedFields({ threshold: options.threshold }),
    };
    if (outcome.status === "skipped") return this.record({ ...base, outcome: "skipped" });
    const ts = new Date(outcome.event.occurredAt).toISOString();
    const { event } = outcome;
    if (event.type === "compaction.failed") {
      return this.record({ ...base, ts, mode: event.data.mode, outcome: "failed", failureReason: event.data.reason });
    }
    if (event.type !== "messages.superseded") return undefined;
    const { stats, mode } = event.data;
    return this.record({
      ...base,
      ts,
      mode,
      outcome: "compacted",
      tokensBefore: stats.tokensBefore,
      tokensAfter: stats.tokensAfter,
      ...definedFields({ durationMs: stats.durationMs }),
    });
  }

  /** Records one micro pass: absorbed, defragged, skipped, failed or noop, with the exchange and marker tokens. */
  recordMicro(
    session: Session,
    outcome: MicroOutcome,
    options: { threshold?: number } = {},
  ): TelemetryLine | undefined {
    const event = outcome.event;
    const mode =
      event?.type === "messages.superseded" || event?.type === "compaction.failed" ? event.data.mode : undefined;
    return this.record({
      sessionId: session.id,
      kind: "micro",
      outcome: outcome.outcome,
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      durationMs: outcome.durationMs,
      ...definedFields({ mode }),
      ...(event === undefined ? {} : { ts: new Date(event.occurredAt).toISOString() }),
      ...(event?.type === "compaction.failed" ? { failureReason: event.data.reason } : {}),
      ...definedFields({ exchangeTokens: outcome.exchangeTokens }),
      ...definedFields({ rollingSummaryTokens: outcome.rollingSummaryTokens }),
      ...definedFields({ threshold: options.threshold }),
    });
  }

  /** The running totals of `sessionId` so far. */
  totals(sessionId: string): RunningTotals {
    return this.#totals.of(sessionId);
  }

  #report(error: unknown): void {
    if (this.#reported) return;
    this.#reported = true;
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`palimpsest telemetry: a line was dropped (${message}); further failures are silent\n`);
  }
}
