import { cacheCost } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";
import { estimateCache } from "./fold-cache.ts";
import { AUTOMATIC, EXPLICIT, msg, NONE, PRICES, req } from "./rules.ts";

const sys = msg("sys", 2000, "h-sys");
const u1 = msg("u1", 500, "h-u1");
const a1 = msg("a1", 300, "h-a1");
const u2 = msg("u2", 200, "h-u2");
const a2 = msg("a2", 100, "h-a2");

describe("explicit breakpoints", () => {
  it("caches all but the new suffix of an append-only session and never breaks", () => {
    const estimates = estimateCache([req([sys, u1]), req([sys, u1, a1, u2]), req([sys, u1, a1, u2, a2])], EXPLICIT);
    expect(estimates.map((e) => [e.cachedTokens, e.uncachedTokens, e.cacheWriteTokens])).toEqual([
      [0, 2500, 2500],
      [2500, 500, 500],
      [3000, 100, 100],
    ]);
    expect(estimates.map((e) => e.cacheBreak)).toEqual([false, false, false]);
    expect(estimates.map((e) => e.earliestChangedIndex)).toEqual([null, null, null]);
  });

  it("a compaction rewriting message k reads only a prefix ending at an earlier breakpoint, not all before k", () => {
    const summary = msg("u1", 50, "h-summary"); // same id, rewritten in place
    const [, unmarked] = estimateCache([req([sys, u1, a1, u2]), req([sys, summary, a1, u2, a2])], EXPLICIT);
    // No breakpoint ended at sys: nothing before the change is readable (the old model read 2,000 here).
    expect(unmarked).toMatchObject({
      cacheBreak: true,
      earliestChangedIndex: 1,
      cachedTokens: 0,
      uncachedTokens: 2650,
      cacheWriteTokens: 2650,
    });
    const head = { ...sys, breakpoint: true };
    const [, marked] = estimateCache([req([head, u1, a1, u2]), req([head, summary, a1, u2, a2])], EXPLICIT);
    expect(marked).toMatchObject({ cacheBreak: true, cachedTokens: 2000, uncachedTokens: 650, cacheWriteTokens: 650 });
  });

  it("a changed content hash alone is a change", () => {
    const [, second] = estimateCache([req([sys, u1, a1]), req([sys, u1, msg("a1", 300, "other")])], EXPLICIT);
    expect(second).toMatchObject({ cacheBreak: true, earliestChangedIndex: 2, cachedTokens: 2500 });
  });

  it("does not cache a prompt below the minimum prefix, nor read a match shorter than it", () => {
    const small = [msg("s", 600), msg("u", 300)];
    const estimates = estimateCache([req(small), req([...small, msg("a", 50)])], EXPLICIT);
    expect(estimates.map((e) => [e.cachedTokens, e.cacheWriteTokens, e.uncachedTokens])).toEqual([
      [0, 0, 900],
      [0, 0, 950],
    ]);
    const [, rewritten] = estimateCache([req([sys, u1]), req([msg("sys", 2000, "new"), u1])], EXPLICIT);
    expect(rewritten).toMatchObject({ cachedTokens: 0, cacheWriteTokens: 2500, earliestChangedIndex: 0 });
  });

  it("expires an entry idle longer than the TTL and refreshes it on each hit", () => {
    const t0 = 1_000_000;
    const estimates = estimateCache(
      [
        req([sys], t0),
        req([sys, u1], t0 + 240_000), // 4 min: hit, refreshed
        req([sys, u1, a1], t0 + 480_000), // 4 min after the refresh: still a hit
        req([sys, u1, a1, u2], t0 + 781_000), // 5 min 1 s idle: expired
      ],
      EXPLICIT,
    );
    expect(estimates.map((e) => [e.cachedTokens, e.cacheWriteTokens, e.expired])).toEqual([
      [0, 2000, false],
      [2000, 500, false],
      [2500, 300, false],
      [0, 3000, true],
    ]);
    expect(estimates.some((e) => e.cacheBreak)).toBe(false);
  });

  it("assumes unknown times fall within the TTL", () => {
    const [, second] = estimateCache([req([sys], 0), req([sys, u1])], EXPLICIT);
    expect(second).toMatchObject({ cachedTokens: 2000, expired: false });
  });

  it("costs uncached input, reads, writes and output at their prices", () => {
    const [first, second] = estimateCache(
      [req([sys, u1], undefined, 100), req([sys, u1, a1], undefined, 40)],
      EXPLICIT,
    );
    // first: 2,500 written at $1.25/M + 100 output at $5/M
    expect(first?.cost).toBeCloseTo((2500 * 1.25 + 100 * 5) / 1e6, 12);
    // second: 2,500 read at $0.10/M + 300 written at $1.25/M + 40 output at $5/M
    expect(second?.cost).toBeCloseTo((2500 * 0.1 + 300 * 1.25 + 40 * 5) / 1e6, 12);
    const mixed = { cachedTokens: 1000, uncachedTokens: 600, cacheWriteTokens: 200, outputTokens: 10 };
    expect(cacheCost(mixed, PRICES)).toBeCloseTo((400 * 1 + 1000 * 0.1 + 200 * 1.25 + 10 * 5) / 1e6, 12);
  });
});

describe("automatic prefix caching", () => {
  it("serves the matched prefix in 128-token steps past 1,024, with no write surcharge", () => {
    const head = msg("h", 1100);
    const estimates = estimateCache([req([head, msg("x", 300)]), req([head, msg("x", 300), msg("y", 5)])], AUTOMATIC);
    // 1,400 matched → 1,024 + 2 × 128 = 1,280 cached
    expect(estimates[1]).toMatchObject({
      cachedTokens: 1280,
      uncachedTokens: 125,
      cacheWriteTokens: 0,
      cacheBreak: false,
    });
    expect(estimates[0]).toMatchObject({ cachedTokens: 0, uncachedTokens: 1400, cacheWriteTokens: 0 });
  });

  it("caches nothing for a prompt under 1,024 tokens", () => {
    const small = [msg("a", 1000)];
    const estimates = estimateCache([req(small), req([...small, msg("b", 10)])], AUTOMATIC);
    expect(estimates.map((e) => e.cachedTokens)).toEqual([0, 0]);
  });

  it("a change inside the last partial step is not a break; one before the cached steps is", () => {
    const head = msg("h", 1100);
    const [, tail] = estimateCache([req([head, msg("x", 30)]), req([head, msg("x", 30, "new")])], AUTOMATIC);
    // 1,130 tokens cache as 1,024; the change at token 1,100 lies past that
    expect(tail).toMatchObject({ cacheBreak: false, earliestChangedIndex: 1, cachedTokens: 1024 });
    const [, early] = estimateCache(
      [req([head, msg("x", 300)]), req([msg("h", 1100, "new"), msg("x", 300)])],
      AUTOMATIC,
    );
    expect(early).toMatchObject({ cacheBreak: true, earliestChangedIndex: 0, cachedTokens: 0 });
  });
});

describe("no cache", () => {
  it("leaves every token uncached and never breaks", () => {
    const estimates = estimateCache([req([sys, u1], undefined, 7), req([msg("sys", 9, "x"), u1], undefined, 3)], NONE);
    expect(estimates.map((e) => [e.cachedTokens, e.uncachedTokens, e.cacheWriteTokens, e.cacheBreak])).toEqual([
      [0, 2500, 0, false],
      [0, 509, 0, false],
    ]);
    expect(estimates[1]?.earliestChangedIndex).toBe(0);
    expect(estimates[1]?.cost).toBeCloseTo((509 * 1 + 3 * 5) / 1e6, 12);
  });
});
