import {
  type CacheRules,
  cachePricesFor,
  cacheStateHolding,
  fitCalibration,
  KNOWN_MODELS,
  modelPrices,
  type PromptMessage,
  prefixFor,
  stepCache,
} from "@palimpsest/core";
import { breakpointIndexes } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";
import { estimateCache } from "./fold-cache.ts";
import { EXPLICIT, msg, req } from "./rules.ts";

const HOUR: CacheRules = { ...EXPLICIT, ttlSeconds: 3_600 };
const system: PromptMessage = { id: "system", tokens: 20_000, contentHash: "s", breakpoint: true };

/** `n` one-block messages of `tokens` each, ids from `from`. */
const run = (from: number, n: number, tokens = 100): PromptMessage[] =>
  Array.from({ length: n }, (_, i) => msg(`m${from + i}`, tokens, `h${from + i}`));

describe("Anthropic's explicit breakpoints", () => {
  it("puts at most four breakpoints: the last message, the marked ones, then the second-to-last", () => {
    const marked = (id: string): PromptMessage => ({ id, tokens: 1, breakpoint: true });
    expect(breakpointIndexes([marked("a"), msg("b", 1), msg("c", 1)], 4)).toEqual([2, 1, 0]);
    const many = [marked("a"), marked("b"), marked("c"), msg("d", 1), msg("e", 1)];
    expect(breakpointIndexes(many, 4)).toEqual([4, 2, 1, 0]); // the second-to-last loses its place
    expect(breakpointIndexes([], 4)).toEqual([]);
  });

  it("reads the previous prompt within 20 blocks of a breakpoint, only the marked prefix past that", () => {
    const head = [system, ...run(0, 10)];
    const near = [...head, ...run(10, 19)];
    const far = [...head, ...run(10, 25)];
    const [, grown] = estimateCache([req(head), req(near)], EXPLICIT);
    expect(grown).toMatchObject({ cachedTokens: 21_000, cacheWriteTokens: 1_900 });
    const [, lost] = estimateCache([req(head), req(far)], EXPLICIT);
    // 25 blocks past the last write: the look-back misses it, the system prompt's own breakpoint still hits
    expect(lost).toMatchObject({ cachedTokens: 20_000, cacheWriteTokens: 3_500 });
  });

  it("counts a message's blocks for the look-back (tool calls and parts)", () => {
    const head = [system, ...run(0, 3)];
    const wide = [...head, { id: "a", tokens: 100, blocks: 22 }, msg("u", 10)];
    const [, second] = estimateCache([req(head), req(wide)], EXPLICIT);
    expect(second?.cachedTokens).toBe(20_000);
  });

  it("a 1-hour entry survives 59 idle minutes and is gone after 61, system prompt included", () => {
    const t0 = 1_700_000_000_000;
    const a = [system, ...run(0, 5)];
    const b = [...a, ...run(5, 2)];
    const c = [...b, ...run(7, 2)];
    const estimates = estimateCache([req(a, t0), req(b, t0 + 59 * 60_000), req(c, t0 + 120 * 60_000)], HOUR);
    expect(estimates.map((e) => [e.cachedTokens, e.cacheWriteTokens, e.expired])).toEqual([
      [0, 20_500, false],
      [20_500, 200, false],
      [0, 20_900, true],
    ]);
  });

  it("a fixed prefix an earlier session cached is read on the first request, the rest written", () => {
    const cached: PromptMessage = { id: "prefix:cached", tokens: 17_842, contentHash: "p", breakpoint: true };
    const own: PromptMessage = { id: "prefix:session", tokens: 3_618, contentHash: "q", breakpoint: true };
    const state = cacheStateHolding([cached], 1_000);
    const first = stepCache(state, { messages: [cached, own, msg("u", 500)], atMs: 2_000, completionTokens: 1 }, HOUR);
    expect(first.estimate).toMatchObject({ cachedTokens: 17_842, cacheWriteTokens: 4_118 });
    const cold = stepCache(state, { messages: [cached, own], atMs: 1_000 + 3_601_000, completionTokens: 1 }, HOUR);
    expect(cold.estimate.cachedTokens).toBe(0);
  });

  it("never writes a breakpoint below the model's minimum prefix", () => {
    const rules = { ...EXPLICIT, minCacheableTokens: 4_096 };
    const [first, second] = estimateCache([req([msg("a", 3_000)]), req([msg("a", 3_000), msg("b", 50)])], rules);
    expect([first?.cacheWriteTokens, second?.cachedTokens]).toEqual([0, 0]);
  });
});

describe("calibration from real usage", () => {
  const point = (ourTokens: number, model = "claude-opus-4-6", cacheReadTokens = 0) => ({
    ourTokens,
    realTokens: Math.round(21_460 + 1.25 * ourTokens),
    cacheReadTokens,
    model,
  });

  it("fits the scale on growth and takes the prefix from the first request, its cache read the warm part", () => {
    const fit = fitCalibration([point(8, "claude-opus-4-6", 17_842), point(1_000), point(40_000), point(90_000)]);
    expect(fit.scale).toBeCloseTo(1.25, 4);
    expect(fit.scaleSource).toBe("usage");
    expect(fit.prefixes).toEqual([{ model: "claude-opus-4-6", tokens: 21_460, warmTokens: 17_842 }]);
    expect(fit.points).toBe(4);
  });

  it("gives each model its own prefix from its first request, one scale over all", () => {
    const haiku = (ours: number) => ({ ...point(ours, "claude-haiku-4-5"), realTokens: 30_000 + 1.25 * ours });
    const fit = fitCalibration([point(8), point(5_000), haiku(6_000), haiku(26_000)]);
    expect(fit.scale).toBeCloseTo(1.25, 3);
    expect(prefixFor(fit, "claude-haiku-4-5")?.tokens).toBe(30_000);
    expect(prefixFor(fit, "claude-opus-4-6")?.tokens).toBe(21_460);
    expect(prefixFor(fit, "another")?.model).toBe("claude-opus-4-6"); // unknown: the first one
  });

  it("keeps scale 1 with one request, and takes a given prefix (cold) only without usage", () => {
    const one = fitCalibration([point(100, "m", 5_000)], { fixedPrefixTokens: 7, source: "flag" });
    expect(one).toMatchObject({ scale: 1, scaleSource: "none", prefixSource: "usage" });
    const none = fitCalibration([], { fixedPrefixTokens: 12_000, source: "flag" });
    expect(none).toMatchObject({ scale: 1, prefixes: [{ tokens: 12_000, warmTokens: 0 }], prefixSource: "flag" });
    expect(fitCalibration([]).prefixSource).toBe("none");
  });
});

describe("the price table", () => {
  it("knows dated names, prices 1-hour writes at 2× and 5-minute ones at 1.25× input, and no unknown model", () => {
    const sonnet = modelPrices("claude-sonnet-4-5-20250929");
    expect(sonnet).toMatchObject({ input: 3, output: 15, minCacheableTokens: 1_024 });
    expect(modelPrices("claude-opus-4-6")).toMatchObject({ input: 5, cachedRead: 0.5, cacheWrite1h: 10 });
    expect(modelPrices("gpt-4.1-mini")?.input).toBe(0.4); // not gpt-4.1's
    expect(modelPrices("llama-3")).toBeUndefined();
    expect(KNOWN_MODELS).toContain("gpt-5");
    if (sonnet === undefined) throw new Error("unreachable");
    expect(cachePricesFor(sonnet, 3_600).cacheWrite).toBe(6);
    expect(cachePricesFor(sonnet, 300).cacheWrite).toBe(3.75);
  });
});
