import type { CompactionMode } from "@palimpsest/core";

/** One provider request of a series: the view's tokens, the cache model's verdict, and real usage when known. */
export interface RequestPoint {
  /** 1-based request number along the series (continues across the sessions of a replay run). */
  x: number;
  /** Set on the first request of each session: a line does not join it to the previous session's last. */
  firstOfSession?: true;
  /**
   * The prompt of this request as the cache model counts it: the active view's tokens (a stored session), or
   * the provider's tokens with the fixed prefix (a replay, calibrated on the transcript's usage).
   */
  viewTokens: number;
  /** What the cache model estimates for this request under the profile's rules. */
  model: { cachedTokens: number; cacheWriteTokens: number; cacheBreak: boolean };
  /** The provider's usage of the turn this request closed, when the log has it. */
  real?: { promptTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
}

/** One compaction of a series (every supersede but insertion trims), placed between two requests. */
export interface CompactionPoint {
  /** Requests before it + 0.5: it ran after request `x - 0.5` and shaped the next one. */
  x: number;
  /** Seq of its supersede event in its session's log (a stored session's; a replay's have none). */
  seq?: number;
  mode: CompactionMode;
  /** The view's tokens before and after it, as the compaction counted them (what the tables show). */
  tokensBefore: number;
  tokensAfter: number;
  /** The same two in the units of the requests' viewTokens, where the chart draws its drop. */
  promptBefore: number;
  promptAfter: number;
}

/**
 * The figures of one series that the overview, the cache strips and the tables show, computed once by the
 * report's source (a replay's are its policy's metrics, as `replay` prints them).
 */
export interface SeriesFigures {
  /** Provider requests (what `replay` calls turns). */
  turns: number;
  compactions: number;
  /** Sum of tokensBefore − tokensAfter over the compactions. */
  tokensReclaimed: number;
  /** The largest prompt of any request, in the units of viewTokens. */
  peakPromptTokens: number;
  /** Requests whose cached prefix the cache model found broken. */
  cacheBreaks: number;
  /** Tokens the cache model read from the cache and wrote to it, over every request. */
  cachedTokens: number;
  cacheWriteTokens: number;
}

/** One line of the chart: a session, or one policy's replay run over every session of a transcript. */
export interface ReportSeries {
  label: string;
  requests: RequestPoint[];
  compactions: CompactionPoint[];
  figures: SeriesFigures;
}

/** A plain table of the report, with its caption and header row. */
export interface ReportTable {
  caption: string;
  header: string[];
  rows: (string | number)[][];
}

/** Everything the HTML report shows; built from logs or a replay, rendered by renderReport. */
export interface ReportData {
  title: string;
  /** One line under the title: the profile, window, source. */
  subtitle: string;
  series: ReportSeries[];
  /** Extra tables after the figures: the cache metrics per policy (replay) or model vs usage (session). */
  tables: ReportTable[];
  /** What the prompts kept of the conversation (docs/fidelity.md), per policy; replay reports only. */
  fidelity?: ReportTable[];
}
