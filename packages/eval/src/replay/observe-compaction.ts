import assert from "node:assert";
import { type LiveEntry, spanRun } from "@palimpsest/core";
import type { CompactOutcome } from "@palimpsest/runtime";
import { cacheShare, type ReplayCompaction } from "./observe-micro.ts";

/**
 * What a committed compaction cost, read from its outcome and the view it was planned on. Auxiliary
 * tokens are the summarizer's reported figures; when it reports none (the offline summarizer), they are
 * counted as an LLM summarizer would be billed: input = the summarized messages' tokens, output = the
 * summary's tokens, each times `scale` (the provider's tokens per one of ours). The cache's share of the
 * input is the summarizer's figure, when it reported one (cacheShare). A prune has none.
 */
export function observeCompaction(
  outcome: Extract<CompactOutcome, { status: "compacted" }>,
  viewBefore: readonly LiveEntry[],
  requestIndex: number,
  scale = 1,
): ReplayCompaction {
  const { plan, event } = outcome;
  assert(event.type === "messages.superseded", `compaction committed a ${event.type} event`); // a defect, not an input
  const { stats, replacements } = event.data;
  const targets = new Set(plan.targets);
  const earliestChangedIndex = viewBefore.findIndex((e) => targets.has(e.message.id));
  const run = spanRun(viewBefore, plan.targets);
  const summary = plan.kind === "summary";
  const ours = (tokens: number) => Math.round(scale * tokens);
  return {
    kind: plan.kind,
    tokensBefore: stats.tokensBefore,
    tokensAfter: stats.tokensAfter,
    auxInputTokens: summary ? (stats.auxTokensIn ?? ours(plan.input.reduce((n, e) => n + e.tokens, 0))) : 0,
    auxOutputTokens: summary ? (stats.auxTokensOut ?? ours(replacements.reduce((n, r) => n + r.tokens, 0))) : 0,
    ...(summary ? cacheShare(stats) : {}),
    earliestChangedIndex,
    requestIndex,
    ...(run === undefined ? {} : { spanEnd: run.end }),
  };
}
