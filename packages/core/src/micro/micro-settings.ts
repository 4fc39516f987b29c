import { definedFields } from "../defined-fields.ts";
import { type OptionShape, OptionValues } from "../input/check-options.ts";

/** How micro-compaction runs: the off switch, its cadence, the defrag limit and the poison-exchange bound. */
export interface MicroSettings {
  /** The runtime-wide off switch, default true once `compaction.micro` is given (a session can opt out with `settings.microCompact: false`). */
  enabled: boolean;
  /** Run after every N-th completed turn: 1 or more (a runtime refuses less; resolveMicroSettings clamps it to 1). */
  everyNTurns: number;
  /** Defrag once the rolling-summary marker holds more than this many tokens. */
  defragLimitTokens: number;
  /** Failed summaries of one exchange before it is skipped and left verbatim. */
  maxAttempts: number;
}

/**
 * The defaults of the settings a runtime's `compaction.micro` leaves out (micro-compaction itself is off
 * until `compaction.micro` is given): enabled, after every turn, defrag past 2,000 tokens, three attempts
 * per exchange.
 */
export const DEFAULT_MICRO_SETTINGS: MicroSettings = {
  enabled: true,
  everyNTurns: 1,
  defragLimitTokens: 2_000,
  maxAttempts: 3,
};

/**
 * Every key of MicroSettings with its value's schema (checkOptions, optionsSchema): a switch and three
 * whole numbers (the cadence and attempts one or more, the defrag limit zero or more).
 */
export const MICRO_SETTINGS_SHAPE: OptionShape<MicroSettings> = {
  enabled: OptionValues.flag,
  everyNTurns: OptionValues.count,
  defragLimitTokens: OptionValues.tokens,
  maxAttempts: OptionValues.count,
};

/** Fills in the defaults and clamps the cadence and attempts to at least 1. */
export function resolveMicroSettings(settings: Partial<MicroSettings> = {}): MicroSettings {
  const merged = { ...DEFAULT_MICRO_SETTINGS, ...definedFields(settings) };
  return {
    ...merged,
    everyNTurns: Math.max(1, Math.floor(merged.everyNTurns)),
    maxAttempts: Math.max(1, Math.floor(merged.maxAttempts)),
  };
}
