export { type CacheTokenCounts, cacheCost } from "./cache-cost.ts";
export type { CacheEstimate } from "./cache-estimate.ts";
export type { CacheKind, CachePrices, CacheRules } from "./cache-rules.ts";
export { cacheableTokens } from "./cacheable-tokens.ts";
export { type CommonPrefix, commonPrefix, promptTokens } from "./common-prefix.ts";
export { cachePricesFor, KNOWN_MODELS, MODEL_PRICES, type ModelPrices, modelPrices } from "./model-prices.ts";
export { type PrefixKeys, prefixKeys } from "./prefix-keys.ts";
export {
  type CalibrationPoint,
  type CalibrationSource,
  type FixedPrefix,
  fitCalibration,
  IDENTITY_CALIBRATION,
  type PromptCalibration,
  prefixFor,
} from "./prompt-calibration.ts";
export type { PromptMessage, ProviderRequest } from "./provider-request.ts";
export {
  breakpointIndexes,
  type CacheEntry,
  type CacheState,
  cacheStateHolding,
  initialCacheState,
  stepCache,
} from "./step-cache.ts";
