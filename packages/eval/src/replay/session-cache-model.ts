import {
  type CacheEstimate,
  type CachePrices,
  type CacheRules,
  type CacheState,
  cachePricesFor,
  cacheStateHolding,
  definedFields,
  type FixedPrefix,
  initialCacheState,
  type ModelPrices,
  modelPrices,
  type PromptCalibration,
  type PromptMessage,
  type ProviderProfile,
  prefixFor,
  stepCache,
  type Usage,
} from "@palimpsest/core";

/** Where the replay's cache lifetime came from: the transcript's usage, `--cache-ttl`, or the profile. */
export type TtlSource = "usage" | "flag" | "profile";

/**
 * A change of the fixed prefix the usage shows at one request: `session` when the provider still read what
 * an earlier session had cached (the tools) but wrote the rest of the prefix again (a new system prompt),
 * `whole` when it read none of it.
 */
export type PrefixReset = "session" | "whole";

/**
 * What the cache model knows of one source session before it is replayed: how our token counts map onto
 * the provider's (scale and fixed prefix), the entry lifetime, whether the requests carry times, and the
 * models that price the agent's requests and the summarizer's calls.
 */
export interface SessionCacheModel {
  calibration: PromptCalibration;
  ttlSeconds: number;
  ttlSource: TtlSource;
  /** Whether the source's requests carry times (without them nothing expires). */
  timed: boolean;
  /** Source requests (by index) before which the usage shows the fixed prefix changed: all after it is written again. */
  prefixResets: ReadonlyMap<number, PrefixReset>;
  profile: ProviderProfile;
  /** Prices every agent request when set (`--model`); otherwise each request's own model, else the session's. */
  agentModel?: string;
  /** The session's model, for requests that name none. */
  sessionModel?: string;
}

/** A model's prices when the table knows it, else undefined (the profile's prices then apply). */
function knownPrices(model: string | undefined): ModelPrices | undefined {
  return model === undefined ? undefined : modelPrices(model);
}

/** The model a request is billed as: `--model`, else the request's own, else the session's. */
export function billedModel(setup: SessionCacheModel, requestModel: string | undefined): string | undefined {
  return setup.agentModel ?? requestModel ?? setup.sessionModel;
}

/** The cache rules a request runs under: the profile's behaviour with the model's prices and minimum prefix. */
export function rulesForModel(setup: SessionCacheModel, model: string | undefined): CacheRules {
  const { profile, ttlSeconds } = setup;
  const { ttlChoices: _choices, fixedPrefixTokens: _prefix, ...cache } = profile.cache;
  const prices = knownPrices(model);
  return {
    ...cache,
    ttlSeconds,
    minCacheableTokens: prices?.minCacheableTokens ?? cache.minCacheableTokens,
    prices: prices === undefined ? profile.prices : cachePricesFor(prices, ttlSeconds),
  };
}

/** The input and output prices a summarizer call is billed at: its model's, else the profile's. */
export function summarizerPrices(profile: ProviderProfile, model: string | undefined): CachePrices {
  const prices = knownPrices(model);
  return prices === undefined ? profile.prices : cachePricesFor(prices, 300);
}

/**
 * What a request really cost by its usage: plain input, cache reads, 1-hour and 5-minute writes and output,
 * each at the model's price (the profile's when the model is unknown). Undefined without a prompt count.
 */
export function realCost(usage: Usage, model: string | undefined, profile: ProviderProfile): number | undefined {
  if (usage.promptTokens === undefined) return undefined;
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const write1h = Math.min(write, usage.cacheWrite1hTokens ?? 0);
  const known = knownPrices(model);
  const p = known ?? {
    ...profile.prices,
    cacheWrite5m: profile.prices.cacheWrite,
    cacheWrite1h: profile.prices.cacheWrite,
  };
  return (
    ((usage.promptTokens - read - write) * p.input +
      read * p.cachedRead +
      write1h * p.cacheWrite1h +
      (write - write1h) * p.cacheWrite5m +
      (usage.completionTokens ?? 0) * p.output) /
    1_000_000
  );
}

/** How often each part of the fixed prefix has changed so far: a changed part is new content to the cache. */
interface PrefixVersions {
  cached: number;
  session: number;
}

/** The prompt messages standing for a fixed prefix: the part an earlier session cached, then the rest, each a breakpoint. */
function prefixMessages(prefix: FixedPrefix | undefined, versions: PrefixVersions): PromptMessage[] {
  if (prefix === undefined || prefix.tokens <= 0) return [];
  const warm = Math.min(prefix.warmTokens, prefix.tokens);
  const parts = [
    { id: "fixed-prefix:cached", tokens: warm, version: versions.cached },
    { id: "fixed-prefix:session", tokens: prefix.tokens - warm, version: versions.session },
  ];
  return parts
    .filter((p) => p.tokens > 0)
    .map(({ id, tokens, version }) => ({
      id,
      tokens,
      contentHash: version === 0 ? id : `${id}#${version}`,
      breakpoint: true,
    }));
}

/** One source request as the cache simulation takes it. */
export interface SimulatedRequest {
  /** Its index among the source session's requests (prefix resets are keyed by it). */
  index: number;
  /** The prompt, in our token counts. */
  messages: readonly PromptMessage[];
  /** The model that served it. */
  model: string | undefined;
  atMs: number | undefined;
  /** The provider's output tokens. */
  outputTokens: number;
}

/**
 * The cache of one replayed prompt sequence (the policy's, or the uncompacted baseline's): one cache per
 * model (a model switch starts cold), the calibrated prefix in front of every prompt, our counts scaled,
 * and the prefix changed where the source's usage shows it changed (prefixResets), whatever the policy.
 */
export class CacheSimulation {
  private readonly states = new Map<string, CacheState>();
  private readonly versions: PrefixVersions = { cached: 0, session: 0 };

  constructor(private readonly setup: SessionCacheModel) {}

  /** One request, in the source's order. */
  step({ index, messages, model: requestModel, atMs, outputTokens }: SimulatedRequest): CacheEstimate {
    const { calibration } = this.setup;
    const reset = this.setup.prefixResets.get(index);
    if (reset === "whole") this.versions.cached += 1;
    if (reset !== undefined) this.versions.session += 1;
    const cacheKey = requestModel ?? "";
    const prefix = prefixMessages(prefixFor(calibration, requestModel), this.versions);
    const state = this.states.get(cacheKey) ?? this.initialState(prefix, atMs);
    const scale = calibration.scale;
    const scaled = scale === 1 ? messages : messages.map((m) => ({ ...m, tokens: Math.round(m.tokens * scale) }));
    const rules = rulesForModel(this.setup, billedModel(this.setup, requestModel));
    const at = this.setup.timed ? atMs : undefined;
    const request = {
      messages: [...prefix, ...scaled],
      completionTokens: outputTokens,
      ...definedFields({ atMs: at }),
    };
    const step = stepCache(state, request, rules);
    this.states.set(cacheKey, step.state);
    return step.estimate;
  }

  /** Before a model's first request: its cache holds what an earlier session had cached of the prefix. */
  private initialState(prefix: readonly PromptMessage[], atMs: number | undefined): CacheState {
    const cached = prefix[0];
    if (cached === undefined || cached.id !== "fixed-prefix:cached") return initialCacheState;
    return cacheStateHolding([cached], this.setup.timed ? atMs : undefined);
  }
}
