import assert from "node:assert";
import type { CompactionObservation, LiveEntry } from "@palimpsest/core";
import type { CompactOutcome } from "@palimpsest/runtime";

/**
 * What a committed compaction cost, read from its outcome and the view it was planned on. Auxiliary
 * tokens are the summarizer's reported figures; when it reports none (the offline summarizer), they are
 * counted as an LLM summarizer would be billed: input = the summarized messages' tokens, output = the
 * summary's tokens. A prune has none.
 */
export function observeCompaction(
  outcome: Extract<CompactOutcome, { status: "compacted" }>,
  viewBefore: readonly LiveEntry[],
  requestIndex: number,
): CompactionObservation {
  const { plan, event } = outcome;
  assert(event.type === "messages.superseded", `compaction committed a ${event.type} event`); // a defect, not an input
  const { stats, replacements } = event.data;
  const targets = new Set(plan.targets);
  const earliestChangedIndex = viewBefore.findIndex((e) => targets.has(e.message.id));
  const summary = plan.kind === "summary";
  return {
    kind: plan.kind,
    tokensBefore: stats.tokensBefore,
    tokensAfter: stats.tokensAfter,
    auxInputTokens: summary ? (stats.auxTokensIn ?? plan.input.reduce((n, e) => n + e.tokens, 0)) : 0,
    auxOutputTokens: summary ? (stats.auxTokensOut ?? replacements.reduce((n, r) => n + r.tokens, 0)) : 0,
    earliestChangedIndex,
    requestIndex,
  };
}
