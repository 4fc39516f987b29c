/**
 * What a pre-computed summary is valid for: the session, the last message it summarized, a hash of the
 * exact prefix the model saw up to that message, a hash of the system prompt, and who summarized it.
 */
export interface CandidateKey {
  sessionId: string;
  lastMessageId: string;
  prefixHash: string;
  systemPromptHash: string;
  summarizerModel: string;
  promptVersion: string;
}

/**
 * A summary of a session's stable prefix written in the background: a disposable cache, never history.
 * At most one per session; only a compaction commit (after validating its key) turns it into an event.
 */
export interface PrecompactionCandidate {
  key: CandidateKey;
  /** Ids of the live messages the summary stands for, in view order (earlier summaries included). */
  targets: string[];
  /** The summary text, without the reference-only note (the commit adds it). */
  summary: string;
  /** The view version the prefix was read at: a candidate is only stored while it is still current. */
  basisViewVersion: number;
  /** When the candidate was written (epoch milliseconds), for its age at use. */
  createdAt: number;
  /** How long the background summarization took: the synchronous time a hit saves, and the waste of a miss. */
  summaryMs: number;
  /** Tokens the summarizer read and wrote, when it reported them. */
  auxTokensIn?: number;
  auxTokensOut?: number;
  /** Of auxTokensIn, those the provider read from its prompt cache, when it reported them. */
  auxTokensCacheRead?: number;
  /** Of auxTokensIn, those the provider wrote to its prompt cache, when it reported them. */
  auxTokensCacheWrite?: number;
}
