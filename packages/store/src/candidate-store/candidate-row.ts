import { definedFields, type PrecompactionCandidate } from "@palimpsest/core";

/** One row of `precompaction_candidates` (migrations 0002 and 0021): the key's columns, then the cached summary. */
export interface CandidateRow {
  session_id: string;
  last_message_id: string;
  prefix_hash: string;
  system_prompt_hash: string;
  summarizer_model: string;
  prompt_version: string;
  /** JSON array of the message ids the summary stands for. */
  targets: string;
  summary: string;
  basis_view_version: number;
  created_at_ms: number;
  summary_ms: number;
  aux_tokens_in: number | null;
  aux_tokens_out: number | null;
  aux_tokens_cache_read: number | null;
  aux_tokens_cache_write: number | null;
}

/** The row that stores a candidate. */
export function toRow(c: PrecompactionCandidate): CandidateRow {
  return {
    session_id: c.key.sessionId,
    last_message_id: c.key.lastMessageId,
    prefix_hash: c.key.prefixHash,
    system_prompt_hash: c.key.systemPromptHash,
    summarizer_model: c.key.summarizerModel,
    prompt_version: c.key.promptVersion,
    targets: JSON.stringify(c.targets),
    summary: c.summary,
    basis_view_version: c.basisViewVersion,
    created_at_ms: c.createdAt,
    summary_ms: Math.round(c.summaryMs),
    aux_tokens_in: c.auxTokensIn ?? null,
    aux_tokens_out: c.auxTokensOut ?? null,
    aux_tokens_cache_read: c.auxTokensCacheRead ?? null,
    aux_tokens_cache_write: c.auxTokensCacheWrite ?? null,
  };
}

/**
 * The candidate a row stores (the token counts only when stored). The cache counts are dropped when the row's
 * input count is null or smaller than their sum: a process from before migration 0021 upserts the row
 * without them, leaving the previous candidate's beside the new candidate's input.
 */
export function fromRow(row: CandidateRow): PrecompactionCandidate {
  const input = row.aux_tokens_in;
  const cacheFits = input !== null && (row.aux_tokens_cache_read ?? 0) + (row.aux_tokens_cache_write ?? 0) <= input;
  return {
    key: {
      sessionId: row.session_id,
      lastMessageId: row.last_message_id,
      prefixHash: row.prefix_hash,
      systemPromptHash: row.system_prompt_hash,
      summarizerModel: row.summarizer_model,
      promptVersion: row.prompt_version,
    },
    targets: JSON.parse(row.targets) as string[],
    summary: row.summary,
    basisViewVersion: row.basis_view_version,
    createdAt: Number(row.created_at_ms),
    summaryMs: row.summary_ms,
    ...definedFields({
      auxTokensIn: row.aux_tokens_in ?? undefined,
      auxTokensOut: row.aux_tokens_out ?? undefined,
      auxTokensCacheRead: cacheFits ? (row.aux_tokens_cache_read ?? undefined) : undefined,
      auxTokensCacheWrite: cacheFits ? (row.aux_tokens_cache_write ?? undefined) : undefined,
    }),
  };
}
