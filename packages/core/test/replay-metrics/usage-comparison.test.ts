import { compareWithUsage, estimateFigures, usageFigures } from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import { estimateCache } from "../cache-model/fold-cache.ts";

describe("compareWithUsage", () => {
  const estimated = [
    { cacheRead: 100, cacheWrite: 50, input: 10 },
    { cacheRead: 150, cacheWrite: 20, input: 0 },
    { cacheRead: 0, cacheWrite: 0, input: 999 },
  ];
  const real = [
    { cacheRead: 90, cacheWrite: 60, input: 1 },
    { cacheRead: 160, cacheWrite: 20, input: 1 },
    { cacheRead: 5000, cacheWrite: 0, input: 3 },
  ];

  it("totals, mean absolute error and ratio per field over the turns before the real compaction", () => {
    expect(compareWithUsage(estimated, real, 2)).toEqual({
      turns: 2,
      cacheRead: { estimatedTotal: 250, realTotal: 250, meanAbsoluteError: 10, ratio: 1 },
      cacheWrite: { estimatedTotal: 70, realTotal: 80, meanAbsoluteError: 5, ratio: 0.875 },
      input: { estimatedTotal: 10, realTotal: 2, meanAbsoluteError: 5, ratio: 5 },
      cost: null, // no turn was priced
    });
  });

  it("compares costs when every compared turn is priced", () => {
    const priced = (figures: typeof estimated, costs: number[]) =>
      figures.map((f, i) => ({ ...f, cost: costs[i] ?? 0 }));
    const out = compareWithUsage(priced(estimated, [0.5, 0.25, 9]), priced(real, [0.5, 0.5, 1]), 2);
    expect(out.cost).toEqual({ estimatedTotal: 0.75, realTotal: 1, meanAbsoluteError: 0.125, ratio: 0.75 });
    expect(compareWithUsage(priced(estimated, [1, 1, 1]), real, 2).cost).toBeNull();
  });

  it("defaults to every pair both sides have, and has no ratio over a zero real total", () => {
    expect(compareWithUsage(estimated, real.slice(0, 2)).turns).toBe(2);
    const none = compareWithUsage([], []);
    expect(none.cacheRead).toEqual({ estimatedTotal: 0, realTotal: 0, meanAbsoluteError: 0, ratio: null });
  });

  it("puts estimates and recorded usage in the provider's billing shape", () => {
    expect(usageFigures({ promptTokens: 1000, cacheReadTokens: 900, cacheWriteTokens: 95 })).toEqual({
      cacheRead: 900,
      cacheWrite: 95,
      input: 5,
    });
    expect(usageFigures({ completionTokens: 3 })).toBeUndefined();
    const rules = {
      kind: "explicit-breakpoint" as const,
      ttlSeconds: 300,
      minCacheableTokens: 1024,
      granularityTokens: 1,
      prices: { input: 1, cachedRead: 0.1, cacheWrite: 1.25, output: 5 },
    };
    const [, second] = estimateCache(
      [
        { messages: [{ id: "s", tokens: 2000 }], completionTokens: 1 },
        {
          messages: [
            { id: "s", tokens: 2000 },
            { id: "u", tokens: 40 },
          ],
          completionTokens: 1,
        },
      ],
      rules,
    );
    expect(second && estimateFigures(second)).toEqual({
      cacheRead: 2000,
      cacheWrite: 40,
      input: 0,
      cost: (2000 * 0.1 + 40 * 1.25 + 1 * 5) / 1e6,
    });
  });
});
