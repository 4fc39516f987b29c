import {
  ANTI_THRASH_SHAPE,
  MICRO_SETTINGS_SHAPE,
  type OptionShape,
  OptionValues,
  optionsSchema,
  PROVIDER_PROFILES,
  type Summarizer,
  ValidationError,
} from "@palimpsest/core";
import { z } from "zod";
import type { CompactionSettings } from "./compaction-settings.ts";

/** A recall tool name a summary may name: 1 to 128 letters, digits, `_`, `-` or `.`. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * A value that names one of `names()`, or is an object (a policy or a profile of one's own); the names are
 * read when a value is checked.
 */
export const namedOrObject = (names: () => readonly string[], kind: string) =>
  z.custom<string | object>(
    (value) =>
      typeof value === "string"
        ? names().includes(value)
        : typeof value === "object" && value !== null && !Array.isArray(value),
    { error: () => `expected one of ${names().join(", ")}, or a ${kind} of your own` },
  );

/** CachePrices' schema: all four prices, each zero or more. */
const price = z.number().finite().nonnegative();
const CACHE_PRICES_SCHEMA = z.strictObject({ input: price, cachedRead: price, cacheWrite: price, output: price });

/**
 * The schema of each CompactionSettings value but the policy's (COMPACTION_SETTINGS_SHAPE adds it): here,
 * apart from the policies' registry, so the micro passes the policies schedule check their options with
 * the same schemas without importing the registry (which imports them).
 */
export const SETTING_VALUES: Omit<OptionShape<CompactionSettings>, "policy"> = {
  profile: namedOrObject(() => Object.keys(PROVIDER_PROFILES), "ProviderProfile"),
  contextWindow: OptionValues.count,
  maxOutputTokens: OptionValues.tokens,
  summarizerPrices: CACHE_PRICES_SCHEMA,
  lostFactUsd: z.number().nonnegative(),
  summarizer: z.custom<Summarizer>(
    (value) => typeof (value as Partial<Summarizer> | null)?.summarize === "function",
    "expected a Summarizer (an object with summarize())",
  ),
  summaryTimeoutMs: OptionValues.ms,
  antiThrash: optionsSchema(ANTI_THRASH_SHAPE),
  auto: OptionValues.flag,
  trimOnAppend: OptionValues.flag,
  micro: optionsSchema(MICRO_SETTINGS_SHAPE),
  recallTool: z.custom<string>(
    (value) => typeof value === "string" && TOOL_NAME.test(value),
    "expected a tool's name: 1 to 128 letters, digits, _, - or .",
  ),
};

/** Refuses a `recallTool` that is no tool name (VALIDATION at `path`); nothing when it is unset. */
export function checkRecallTool(recallTool: unknown, path: string): void {
  if (recallTool === undefined || (typeof recallTool === "string" && TOOL_NAME.test(recallTool))) return;
  throw new ValidationError(
    "recallTool must be a tool's name: 1 to 128 letters, digits, _, - or .",
    [`${path}: ${JSON.stringify(recallTool)}`],
    { path },
  );
}
