import {
  type CalibrationPoint,
  fitCalibration,
  type ImportedSession,
  type Message,
  type PromptCalibration,
  type ProviderProfile,
  prefixFor,
  type Usage,
} from "@palimpsest/core";
import { createTokenCounter, encodingForModel } from "@palimpsest/core/tokenizer";
import type { PrefixReset, SessionCacheModel, TtlSource } from "./session-cache-model.ts";

/** One provider request of a source session as the source recorded it, with our count of its whole prompt. */
export interface SourceRequest {
  ourTokens: number;
  usage?: Usage;
  model?: string;
  atMs?: number;
}

/** A source session read once before its replay: its requests, our count of every message, its own compaction. */
export interface SourceReading {
  requests: SourceRequest[];
  /** Our token count of each source message by id (untrimmed: what the provider saw). */
  tokens: Map<string, number>;
  /** Index of the first request after the source's own compaction; undefined without one. */
  realCompactionAt: number | undefined;
}

/** What the replay is told of the cache, beyond the profile: CLI flags and their defaults. */
export interface CacheModelOptions {
  /** `--fixed-prefix-tokens`: the prefix when the transcript has no usage (else the profile's value). */
  fixedPrefixTokens?: number;
  /** `--cache-ttl` in seconds: the lifetime when the usage does not show one (else the profile's). */
  cacheTtlSeconds?: number;
  /** `--model`: prices every agent request (else each request's own model). */
  model?: string;
}

/** Reads a source session's requests with our token counts (the session's tokenizer, as the replay counts). */
export async function readSource(source: ImportedSession): Promise<SourceReading> {
  const counter = await createTokenCounter(encodingForModel(source.model));
  const tokens = new Map<string, number>();
  const requests: SourceRequest[] = [];
  let realCompactionAt: number | undefined;
  let total = 0;
  const count = (message: Message): void => {
    const n = counter.countMessage(message);
    tokens.set(message.id, n);
    total += n;
  };
  for (const item of source.items) {
    if (item.kind === "compaction") {
      realCompactionAt ??= requests.length;
      continue;
    }
    const { message } = item;
    if (message.role === "assistant") {
      const at = item.occurredAt === undefined ? Number.NaN : Date.parse(item.occurredAt);
      requests.push({
        ourTokens: total,
        ...(item.usage === undefined ? {} : { usage: item.usage }),
        ...(item.model === undefined ? {} : { model: item.model }),
        ...(Number.isNaN(at) ? {} : { atMs: at }),
      });
    }
    count(message);
  }
  return { requests, tokens, realCompactionAt };
}

/**
 * The cache model of one source session: the calibration fitted on its requests with usage before its own
 * compaction (else the flag's or profile's fixed prefix), the entry lifetime its usage shows (Claude Code's
 * 1-hour writes, else 5-minute ones; else `--cache-ttl`, else the profile's), whether it carries times, and
 * the requests before which its usage shows the fixed prefix changed (prefixResets).
 */
export function sessionCacheModel(
  source: ImportedSession,
  reading: SourceReading,
  profile: ProviderProfile,
  options: CacheModelOptions,
): SessionCacheModel {
  const before = reading.requests.slice(0, reading.realCompactionAt ?? reading.requests.length);
  const points: CalibrationPoint[] = before.flatMap((r) => {
    const real = r.usage?.promptTokens;
    if (real === undefined) return [];
    const model = r.model ?? source.model;
    return [
      {
        ourTokens: r.ourTokens,
        realTokens: real,
        cacheReadTokens: r.usage?.cacheReadTokens ?? 0,
        ...(model === undefined ? {} : { model }),
      },
    ];
  });
  const flagPrefix = options.fixedPrefixTokens;
  const profilePrefix = profile.cache.fixedPrefixTokens;
  const fallback =
    flagPrefix !== undefined
      ? { fixedPrefixTokens: flagPrefix, source: "flag" as const }
      : profilePrefix !== undefined
        ? { fixedPrefixTokens: profilePrefix, source: "profile" as const }
        : {};
  const calibration = fitCalibration(points, fallback);
  const { ttlSeconds, ttlSource } = ttlOf(reading.requests, profile, options.cacheTtlSeconds);
  const modelOf = (r: SourceRequest | undefined) => r?.model ?? source.model;
  return {
    calibration,
    ttlSeconds,
    ttlSource,
    timed: reading.requests.some((r) => r.atMs !== undefined),
    prefixResets: prefixResets(reading.requests, calibration, ttlSeconds, modelOf),
    profile,
    ...(options.model === undefined ? {} : { agentModel: options.model }),
    ...(source.model === undefined ? {} : { sessionModel: source.model }),
  };
}

/** The lifetime the usage shows (explicit caching with writes: 1 h when most written tokens were 1-hour), else the flag's, else the profile's. */
function ttlOf(
  requests: readonly SourceRequest[],
  profile: ProviderProfile,
  flag: number | undefined,
): { ttlSeconds: number; ttlSource: TtlSource } {
  let written = 0;
  let written1h = 0;
  for (const r of requests) {
    written += r.usage?.cacheWriteTokens ?? 0;
    written1h += r.usage?.cacheWrite1hTokens ?? 0;
  }
  if (profile.cache.kind === "explicit-breakpoint" && written > 0) {
    return { ttlSeconds: written1h * 2 > written ? 3_600 : 300, ttlSource: "usage" };
  }
  if (flag !== undefined) return { ttlSeconds: flag, ttlSource: "flag" };
  return { ttlSeconds: profile.cache.ttlSeconds, ttlSource: "profile" };
}

/**
 * The requests whose usage shows the fixed prefix changed under a live cache: the provider read less than
 * the prefix although the previous request, to the same model, came within the lifetime (a new system
 * prompt: Claude Code rewrites it after a background task's notification or a resume). Expiry and model
 * switches are the simulation's own; the first request reads what an earlier session left.
 */
function prefixResets(
  requests: readonly SourceRequest[],
  calibration: PromptCalibration,
  ttlSeconds: number,
  modelOf: (request: SourceRequest | undefined) => string | undefined,
): Map<number, PrefixReset> {
  const resets = new Map<number, PrefixReset>();
  if (calibration.prefixSource !== "usage") return resets;
  requests.forEach((request, i) => {
    const previous = requests[i - 1];
    const read = request.usage?.cacheReadTokens;
    if (previous === undefined || read === undefined || modelOf(previous) !== modelOf(request)) return;
    if (request.atMs !== undefined && previous.atMs !== undefined && request.atMs - previous.atMs > ttlSeconds * 1000)
      return;
    const prefix = prefixFor(calibration, modelOf(request));
    if (prefix === undefined || read >= prefix.tokens) return;
    resets.set(i, read < prefix.warmTokens ? "whole" : "session");
  });
  return resets;
}
