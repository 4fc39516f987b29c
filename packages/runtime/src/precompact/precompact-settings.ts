import { definedFields, type OptionShape, OptionValues } from "@palimpsest/core";
import { z } from "zod";

/** How background pre-compaction runs: the global off switch and its cost controls. */
export interface PrecompactSettings {
  /** The global off switch (a session can be switched off alone with `scheduler.setSessionEnabled`). */
  enabled: boolean;
  /** Share of the compaction threshold above which a candidate is prepared (the soft threshold). */
  softRatio: number;
  /** Quiet time after a session's last completed turn before its job starts. */
  debounceMs: number;
  /** Jobs running at once across all sessions (one per session at most, always). */
  concurrency: number;
  /** A still-valid candidate is rewritten only once this many stable tokens joined its prefix. */
  refreshTokens: number;
  /**
   * On a hit, leave the messages after the candidate's span verbatim when the view then has room (it
   * lands under the runway target), so the turn makes no summarizer call; false always summarizes them.
   */
  keepDelta: boolean;
  /** The system prompt of a session, when the agent keeps it outside the transcript. */
  systemPrompt?: (sessionId: string) => string | undefined;
}

/** Every key of PrecompactSettings with its value's schema (checkOptions; RuntimeDeps' `precompact`). */
export const PRECOMPACT_SETTINGS_SHAPE: OptionShape<PrecompactSettings> = {
  enabled: OptionValues.flag,
  softRatio: z.number().min(0).max(1),
  debounceMs: OptionValues.ms,
  concurrency: OptionValues.count,
  refreshTokens: z.number().int().nonnegative(),
  keepDelta: OptionValues.flag,
  systemPrompt: OptionValues.fn,
};

/**
 * Defaults: on, 65% of the hard threshold, 2 s debounce, 2 jobs at once, refresh after 8,000 new tokens,
 * the delta kept verbatim when there is room.
 */
export const DEFAULT_PRECOMPACT_SETTINGS: PrecompactSettings = {
  enabled: true,
  softRatio: 0.65,
  debounceMs: 2_000,
  concurrency: 2,
  refreshTokens: 8_000,
  keepDelta: true,
};

/** Fills in the defaults; the concurrency is at least 1 and the debounce at least 0. */
export function resolvePrecompactSettings(settings: Partial<PrecompactSettings> = {}): PrecompactSettings {
  const merged: PrecompactSettings = { ...DEFAULT_PRECOMPACT_SETTINGS, ...definedFields(settings) };
  return {
    ...merged,
    concurrency: Math.max(1, Math.floor(merged.concurrency)),
    debounceMs: Math.max(0, merged.debounceMs),
  };
}
