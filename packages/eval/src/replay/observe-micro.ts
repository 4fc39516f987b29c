import type { CompactionObservation, LiveEntry, MessagesSuperseded } from "@palimpsest/core";
import { definedFields } from "@palimpsest/core";
import type { MicroBatchPass, MicroOutcome } from "@palimpsest/runtime";

/** A committed compaction of a replay: a batch one (prune, summary) or a micro pass (micro absorb, defrag). */
export interface ReplayCompaction extends Omit<CompactionObservation, "kind"> {
  kind: CompactionObservation["kind"] | "micro" | "defrag";
  /**
   * A batch compaction's span end when its targets are one run of the view it was planned on (as the
   * runtime then gives a summarizer the conversation): the index just after its last target.
   */
  spanEnd?: number;
}

/**
 * What a committed micro pass cost, read from its outcome and the view it was planned on; undefined when
 * it committed nothing. Billed as observeCompaction bills a summary: input = the superseded messages'
 * tokens (previous marker and exchange, or the marker alone), output = the new marker's tokens, each times
 * `scale` (the provider's tokens per one of ours), unless the summarizer reported its own figures.
 */
export function observeMicro(
  outcome: MicroOutcome,
  viewBefore: readonly LiveEntry[],
  requestIndex: number,
  scale = 1,
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
    auxInputTokens: stats.auxTokensIn ?? Math.round(scale * read.reduce((n, e) => n + e.tokens, 0)),
    auxOutputTokens: stats.auxTokensOut ?? Math.round(scale * replacements.reduce((n, r) => n + r.tokens, 0)),
    ...cacheShare(stats),
    earliestChangedIndex: viewBefore.findIndex((e) => superseded.has(e.message.id)),
    requestIndex,
  };
}

/**
 * The summarizer's input read from and written to its provider's prompt cache, as its compaction recorded
 * them; nothing when it reported none (the offline summarizer), or reported no input count (the input is
 * then the replay's estimate, which the provider's counts are not a share of), so the input is priced in full.
 */
export function cacheShare(
  stats: MessagesSuperseded["stats"],
): Pick<ReplayCompaction, "auxCacheReadTokens" | "auxCacheWriteTokens"> {
  if (stats.auxTokensIn === undefined) return {};
  return definedFields({
    auxCacheReadTokens: stats.auxTokensCacheRead,
    auxCacheWriteTokens: stats.auxTokensCacheWrite,
  });
}

/**
 * The micro passes of one step (as its policy's micro schedule ran them) as one compaction; undefined when
 * none committed. A single pass is observed as itself (observeMicro: `micro` or `defrag`); several (a
 * batch, microBatch) as one `micro` compaction: tokens before the first pass and after the last, the
 * passes' summarizer tokens summed, the earliest index any pass changed.
 */
export function observeMicroPasses(
  passes: readonly MicroBatchPass[],
  requestIndex: number,
  scale = 1,
): ReplayCompaction | undefined {
  const [only] = passes;
  if (passes.length === 1 && only !== undefined)
    return observeMicro(only.outcome, only.viewBefore, requestIndex, scale);
  const observed = passes.flatMap((p) => observeMicro(p.outcome, p.viewBefore, requestIndex, scale) ?? []);
  const [first] = observed;
  const last = observed.at(-1);
  if (first === undefined || last === undefined) return undefined;
  return {
    kind: "micro",
    tokensBefore: first.tokensBefore,
    tokensAfter: last.tokensAfter,
    auxInputTokens: observed.reduce((n, c) => n + c.auxInputTokens, 0),
    auxOutputTokens: observed.reduce((n, c) => n + c.auxOutputTokens, 0),
    ...definedFields({
      auxCacheReadTokens: sumReported(observed.map((c) => c.auxCacheReadTokens)),
      auxCacheWriteTokens: sumReported(observed.map((c) => c.auxCacheWriteTokens)),
    }),
    earliestChangedIndex: Math.min(...observed.map((c) => c.earliestChangedIndex)),
    requestIndex,
  };
}

/** The sum of the counts reported (undefined ones left out); undefined when none was. */
function sumReported(counts: readonly (number | undefined)[]): number | undefined {
  const reported = counts.filter((n) => n !== undefined);
  return reported.length === 0 ? undefined : reported.reduce((n, m) => n + m, 0);
}
