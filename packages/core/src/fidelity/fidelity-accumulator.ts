import type { CompactionFidelity, FidelitySummary, RequestRecall } from "./fidelity-figures.ts";
import { FIDELITY_KINDS, type PerKind, perKind } from "./fidelity-kinds.ts";

/** Adds requests' recalls and compactions' keeps (of one or several conversations) into a FidelitySummary. */
export class FidelityAccumulator {
  private requests = 0;
  private recallSum = 0;
  private readonly kindSum = perKind(() => 0);
  private readonly kindRequests = perKind(() => 0);
  private held = perKind(() => 0);
  private compactions = 0;
  private readonly removed = perKind(() => 0);
  private readonly kept = perKind(() => 0);
  private removedTokens = 0;
  private replacementTokens = 0;

  /** Records one request's recall. */
  recordRequest(recall: RequestRecall): void {
    this.requests += 1;
    this.recallSum += recall.recall;
    for (const kind of FIDELITY_KINDS) {
      const value = recall.byKind[kind];
      if (value === null) continue;
      this.kindSum[kind] += value;
      this.kindRequests[kind] += 1;
    }
  }

  /** Records one compaction. */
  recordCompaction(compaction: CompactionFidelity): void {
    this.compactions += 1;
    for (const kind of FIDELITY_KINDS) {
      this.removed[kind] += compaction.removed[kind];
      this.kept[kind] += compaction.kept[kind];
    }
    this.removedTokens += compaction.removedTokens;
    this.replacementTokens += compaction.replacementTokens;
  }

  /** Records what one conversation held by its end (added to the others'). */
  recordHeld(held: PerKind<number>): void {
    this.held = perKind((k) => this.held[k] + held[k]);
  }

  /** The summary of everything recorded. */
  summary(): FidelitySummary {
    return {
      requests: this.requests,
      meanRecall: this.requests === 0 ? 1 : this.recallSum / this.requests,
      meanRecallByKind: perKind((k) => (this.kindRequests[k] === 0 ? null : this.kindSum[k] / this.kindRequests[k])),
      held: { ...this.held },
      compactions: this.compactions,
      removed: { ...this.removed },
      kept: { ...this.kept },
      keptRatio: perKind((k) => (this.removed[k] === 0 ? null : this.kept[k] / this.removed[k])),
      removedTokens: this.removedTokens,
      replacementTokens: this.replacementTokens,
      sizeRatio: this.removedTokens === 0 ? null : this.replacementTokens / this.removedTokens,
    };
  }
}
