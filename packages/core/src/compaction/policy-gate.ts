import { type AntiThrashConfig, assessBackoff, type Backoff } from "./anti-thrash.ts";
import type { NoPlan, PolicyInput } from "./policy-types.ts";
import { compactionThreshold } from "./threshold.ts";

/** A policy may plan: the threshold it measured against and what the anti-thrash check still blocks. */
export interface GateOpen {
  threshold: number;
  backoff: Backoff;
}

/**
 * Whether a policy should plan at all. Forced runs always may. Otherwise the view must have reached the
 * threshold and the anti-thrash check must not block every compaction; else the NoPlan says why.
 */
export function gateCompaction(input: PolicyInput, antiThrash: AntiThrashConfig): GateOpen | NoPlan {
  const threshold = compactionThreshold(input.contextWindow, input.maxOutputTokens, input.profile.threshold);
  if (input.force) return { threshold, backoff: { blocks: "nothing" } };
  if (input.liveTokens < threshold) {
    return { kind: "none", reason: `${input.liveTokens} live tokens, under the threshold of ${threshold}` };
  }
  const backoff =
    input.history === undefined
      ? ({ blocks: "nothing" } as const)
      : assessBackoff({ ...input.history, liveTokens: input.liveTokens, threshold }, antiThrash);
  if (backoff.blocks === "all") return { kind: "none", reason: `backing off: ${backoff.reason}` };
  return { threshold, backoff };
}
