import type { PrecompactionCandidate } from "../candidates/candidate.ts";

/**
 * Where background pre-compaction keeps its candidates: at most one per session, a disposable cache
 * (losing one costs a cold compaction, never history).
 */
export interface CandidateStore {
  /**
   * Stores the session's candidate, replacing any older one, only while the session's view version is
   * still `candidate.basisViewVersion`; returns false (storing nothing) when the basis moved.
   */
  saveCandidate(candidate: PrecompactionCandidate): Promise<boolean>;
  /** The session's candidate, if any. */
  loadCandidate(sessionId: string): Promise<PrecompactionCandidate | undefined>;
  /** Drops the session's candidate (used, missed, or no longer wanted). */
  deleteCandidate(sessionId: string): Promise<void>;
}
