import type { ImportedSession, PromptMessage } from "@palimpsest/core";
import { ANTHROPIC_PROFILE } from "@palimpsest/core/testing";
import { CacheSimulation, type SourceRequest, sessionCacheModel } from "@palimpsest/eval/testing";
import { describe, expect, it } from "vitest";

const MINUTE = 60_000;

/** A source session of nothing but its model: sessionCacheModel reads the requests from the reading. */
const source: ImportedSession = {
  externalId: "resets",
  format: "claude-code",
  model: "agent-model",
  items: [],
  repairs: { syntheticResults: 0, orphanResults: 0, renamedCalls: 0, renamedMessages: 0, skippedEmpty: 0 },
};

/**
 * Six requests of a session whose fixed prefix is 20,000 provider tokens (15,000 of them cached by an
 * earlier session), our counts one to one: each request's prompt is the prefix plus `ours`.
 */
function request(ours: number, read: number, atMs: number, model?: string): SourceRequest {
  const promptTokens = 20_000 + ours;
  return {
    ourTokens: ours,
    usage: { promptTokens, cacheReadTokens: read, cacheWriteTokens: promptTokens - read },
    atMs,
    ...(model === undefined ? {} : { model }),
  };
}

const REQUESTS = [
  request(1_000, 15_000, 0),
  request(2_000, 21_000, MINUTE),
  // The provider read the tools an earlier session cached, not the rest of the prefix: a new system prompt.
  request(3_000, 16_000, 2 * MINUTE),
  // It read nothing at all, a minute after the previous request: the whole prefix changed.
  request(4_000, 0, 3 * MINUTE),
  // Nothing read after ten idle minutes: the 5-minute entries expired, which the simulation knows already.
  request(5_000, 0, 13 * MINUTE),
  // Nothing read by another model: a model has a cache of its own.
  request(6_000, 0, 14 * MINUTE, "other-model"),
];

function modelOf(requests: readonly SourceRequest[]) {
  const reading = { requests: [...requests], tokens: new Map<string, number>(), realCompactionAt: undefined };
  return sessionCacheModel(source, reading, ANTHROPIC_PROFILE, {});
}

describe("prefix resets read from the usage", () => {
  it("given reads short of the fixed prefix within the lifetime, then those requests are resets; expiry and a model switch are not", () => {
    const model = modelOf(REQUESTS);
    expect(model.calibration.prefixSource).toBe("usage");
    expect(model.calibration.prefixes[0]).toMatchObject({ tokens: 20_000, warmTokens: 15_000 });
    expect(model.ttlSeconds).toBe(300);
    expect([...model.prefixResets]).toEqual([
      [2, "session"],
      [3, "whole"],
    ]);
  });

  it("given a session without usage, then nothing is taken for a reset", () => {
    const untold = REQUESTS.map(({ ourTokens, atMs }) => ({ ourTokens, ...(atMs === undefined ? {} : { atMs }) }));
    expect(modelOf(untold).prefixResets.size).toBe(0);
  });

  it("given a reset, then the simulation writes everything after what the provider still read, as the usage says", () => {
    const model = modelOf(REQUESTS);
    const without = new CacheSimulation({ ...model, prefixResets: new Map() });
    const withResets = new CacheSimulation(model);
    const prompt: PromptMessage[] = [];
    const reads: { with: number; without: number }[] = [];
    REQUESTS.slice(0, 4).forEach((r, index) => {
      prompt.push({ id: `m${index}`, tokens: 1_000, contentHash: `m${index}` });
      const step = { index, messages: [...prompt], model: r.model, atMs: r.atMs, outputTokens: 10 };
      reads.push({ with: withResets.step(step).cachedTokens, without: without.step(step).cachedTokens });
    });
    // Requests 0 and 1 alike: the earlier session's 15,000, then the prefix and the conversation so far.
    expect(reads[0]).toEqual({ with: 15_000, without: 15_000 });
    expect(reads[1]).toEqual({ with: 21_000, without: 21_000 });
    // Request 2: only the tools part survives the new system prompt; request 3: nothing survives.
    expect(reads[2]).toEqual({ with: 15_000, without: 22_000 });
    expect(reads[3]).toEqual({ with: 0, without: 23_000 });
  });
});
