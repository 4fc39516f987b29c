import type { PrecompactionCandidate } from "./candidate.ts";
import type { CandidatePlan } from "./plan-candidate.ts";
import { type CandidateContext, validateCandidate } from "./validate-candidate.ts";

/**
 * True when an existing candidate makes a new background job pointless: it still validates against the
 * prefix just planned, and fewer than `refreshTokens` stable tokens have joined that prefix since.
 */
export function candidateIsFresh(
  existing: PrecompactionCandidate,
  plan: CandidatePlan,
  context: Omit<CandidateContext, "targets">,
  refreshTokens: number,
): boolean {
  const verdict = validateCandidate(existing, { ...context, targets: plan.targets });
  if (!verdict.hit) return false;
  const byId = new Map(context.view.map((e) => [e.message.id, e.tokens]));
  const added = plan.targets.slice(verdict.covered).reduce((n, id) => n + (byId.get(id) ?? 0), 0);
  return added < refreshTokens;
}
