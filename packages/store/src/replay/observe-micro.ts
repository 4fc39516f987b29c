import type { CompactionObservation, LiveEntry } from "@palimpsest/core";
import type { MicroOutcome } from "../compaction/micro-compact.ts";

/** A committed compaction of a replay: a batch one (prune, summary) or a micro pass (micro absorb, defrag). */
export interface ReplayCompaction extends Omit<CompactionObservation, "kind"> {
  kind: CompactionObservation["kind"] | "micro" | "defrag";
}

/**
 * What a committed micro pass cost, read from its outcome and the view it was planned on; undefined when
 * it committed nothing. Billed as observeCompaction bills a summary: input = the superseded messages'
 * tokens (previous marker and exchange, or the marker alone), output = the new marker's tokens, unless the
 * summarizer reported its own figures.
 */
export function observeMicro(
  outcome: MicroOutcome,
  viewBefore: readonly LiveEntry[],
  requestIndex: number,
): ReplayCompaction | undefined {
  const { event } = outcome;
  if (event?.type !== "messages.superseded") return undefined;
  const { stats, replacements, targets } = event.data;
  const superseded = new Set(targets);
  const read = viewBefore.filter((e) => superseded.has(e.message.id));
  return {
    kind: outcome.outcome === "defragged" ? "defrag" : "micro",
    tokensBefore: outcome.tokensBefore,
    tokensAfter: outcome.tokensAfter,
    auxInputTokens: stats.auxTokensIn ?? read.reduce((n, e) => n + e.tokens, 0),
    auxOutputTokens: stats.auxTokensOut ?? replacements.reduce((n, r) => n + r.tokens, 0),
    earliestChangedIndex: viewBefore.findIndex((e) => superseded.has(e.message.id)),
    requestIndex,
  };
}
