/** One request of a source session: our count of its prompt and the provider's (input + cache read + cache write). */
export interface CalibrationPoint {
  ourTokens: number;
  realTokens: number;
  /** The provider's cache read on this request (the first request of a model shows what was already cached). */
  cacheReadTokens: number;
  /** The model that served it; each model's first request fixes that model's prefix. */
  model?: string;
}

/** The fixed prefix one model's requests carry: system prompt and tool schemas, not in the transcript. */
export interface FixedPrefix {
  model?: string;
  /** Provider tokens before the first transcript message. */
  tokens: number;
  /** Of those, how many the provider already held before the session's first request (an earlier session's cache). */
  warmTokens: number;
}

/** Where a calibration figure came from: the transcript's usage, a profile value, a flag, or nowhere (defaults). */
export type CalibrationSource = "usage" | "profile" | "flag" | "none";

/**
 * How our token counts map onto the provider's for one session: provider tokens ≈ prefix + scale × ours.
 * `points` is how many requests with usage the fit saw.
 */
export interface PromptCalibration {
  scale: number;
  scaleSource: CalibrationSource;
  prefixes: FixedPrefix[];
  prefixSource: CalibrationSource;
  points: number;
}

/** No usage, no profile value, no flag: our counts as they are, no prefix. */
export const IDENTITY_CALIBRATION: PromptCalibration = {
  scale: 1,
  scaleSource: "none",
  prefixes: [],
  prefixSource: "none",
  points: 0,
};

/** Scales outside this range are taken for a bad fit (a prompt the source rewrote) and clamped. */
const SCALE_RANGE = { min: 0.5, max: 3 } as const;

/**
 * Fits a session's calibration from its requests with usage, in order (stop before the source's own
 * compaction). The scale is the least-squares slope of real against our tokens, each request measured
 * from the first request of its model (so the fixed prefix cancels out); each model's prefix is its
 * first request's real tokens minus the scaled count of that prompt, and its warm part that request's
 * cache read. With fewer than two requests the scale is 1. Without any request with usage,
 * `fixedPrefixTokens` (a flag or profile value) is the prefix, cold.
 */
export function fitCalibration(
  points: readonly CalibrationPoint[],
  fallback: { fixedPrefixTokens?: number; source?: Exclude<CalibrationSource, "usage" | "none"> } = {},
): PromptCalibration {
  const firsts = new Map<string, CalibrationPoint>();
  let sxy = 0;
  let sxx = 0;
  for (const point of points) {
    const key = point.model ?? "";
    const first = firsts.get(key);
    if (first === undefined) {
      firsts.set(key, point);
      continue;
    }
    const dx = point.ourTokens - first.ourTokens;
    sxy += dx * (point.realTokens - first.realTokens);
    sxx += dx * dx;
  }
  const fitted = sxx > 0 && points.length >= 2;
  const scale = fitted ? Math.min(SCALE_RANGE.max, Math.max(SCALE_RANGE.min, sxy / sxx)) : 1;
  const given = fallback.fixedPrefixTokens;
  if (given !== undefined && points.length === 0) {
    return {
      scale,
      scaleSource: fitted ? "usage" : "none",
      prefixes: [{ tokens: given, warmTokens: 0 }],
      prefixSource: fallback.source ?? "flag",
      points: points.length,
    };
  }
  const prefixes = [...firsts.values()].map((first) => {
    const tokens = Math.max(0, Math.round(first.realTokens - scale * first.ourTokens));
    return {
      ...(first.model === undefined ? {} : { model: first.model }),
      tokens,
      warmTokens: Math.min(tokens, first.cacheReadTokens),
    };
  });
  return {
    scale,
    scaleSource: fitted ? "usage" : "none",
    prefixes,
    prefixSource: prefixes.length > 0 ? "usage" : "none",
    points: points.length,
  };
}

/** The prefix a model's requests carry under a calibration: its own, else the first one (a flag's or profile's). */
export function prefixFor(calibration: PromptCalibration, model: string | undefined): FixedPrefix | undefined {
  return calibration.prefixes.find((p) => p.model === model) ?? calibration.prefixes[0];
}
