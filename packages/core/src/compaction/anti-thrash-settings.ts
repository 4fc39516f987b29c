import { z } from "zod";
import { definedFields } from "../defined-fields.ts";
import { type OptionShape, OptionValues, optionsSchema } from "../input/check-options.ts";
import { type AntiThrashConfig, DEFAULT_ANTI_THRASH } from "./anti-thrash.ts";

/** The failure classes with a cooldown of their own (AntiThrashConfig.cooldownMs). */
type CooldownFailure = keyof AntiThrashConfig["cooldownMs"];

/**
 * Anti-thrash settings as a runtime takes them: any of AntiThrashConfig's fields (cooldowns by failure
 * class included), the others DEFAULT_ANTI_THRASH's.
 */
export type AntiThrashSettings = Partial<Omit<AntiThrashConfig, "cooldownMs">> & {
  cooldownMs?: Partial<AntiThrashConfig["cooldownMs"]>;
};

const COOLDOWN_SHAPE: OptionShape<Record<CooldownFailure, number>> = {
  "rate-limited": OptionValues.ms,
  empty: OptionValues.ms,
  truncated: OptionValues.ms,
  malformed: OptionValues.ms,
  refused: OptionValues.ms,
  other: OptionValues.ms,
};

/**
 * Every key of AntiThrashSettings with its value's schema (checkOptions, optionsSchema): shares of the
 * threshold from 0 (the ineffective one at most 1), strikes one or more, durations in ms.
 */
export const ANTI_THRASH_SHAPE: OptionShape<AntiThrashSettings> = {
  ineffectiveRatio: z.number().min(0).max(1),
  strikes: OptionValues.count,
  regrowthRatio: z.number().finite().nonnegative(),
  timeoutCooldownsMs: z.array(OptionValues.ms).min(1),
  cooldownMs: optionsSchema(COOLDOWN_SHAPE),
};

/** The config `settings` give: each field given, the others (each cooldown too) DEFAULT_ANTI_THRASH's. */
export function resolveAntiThrash(settings: AntiThrashSettings): AntiThrashConfig {
  const { cooldownMs, ...fields } = settings;
  return {
    ...DEFAULT_ANTI_THRASH,
    ...definedFields(fields),
    cooldownMs: { ...DEFAULT_ANTI_THRASH.cooldownMs, ...definedFields(cooldownMs ?? {}) },
  };
}
