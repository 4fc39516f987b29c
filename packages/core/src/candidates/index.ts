export type { CandidateKey, PrecompactionCandidate } from "./candidate.ts";
export { candidateIsFresh } from "./candidate-freshness.ts";
export { type CandidateInput, type CandidatePlan, planCandidate, softThreshold } from "./plan-candidate.ts";
export { type DeltaPlan, planDelta } from "./plan-delta.ts";
export { prefixHash, systemPromptHash } from "./prefix-hash.ts";
export { stablePrefixEnd } from "./stable-prefix.ts";
export {
  type CandidateContext,
  type CandidateMiss,
  type CandidateVerdict,
  validateCandidate,
} from "./validate-candidate.ts";
