import type { CacheRules, PromptMessage, ProviderRequest } from "@palimpsest/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateCache } from "./fold-cache.ts";
import { AUTOMATIC, EXPLICIT, NONE } from "./rules.ts";

const messageArb: fc.Arbitrary<PromptMessage> = fc.record({
  id: fc.constantFrom("a", "b", "c", "d", "e"),
  tokens: fc.integer({ min: 0, max: 3000 }),
  contentHash: fc.constantFrom("h1", "h2"),
});

const rulesArb: fc.Arbitrary<CacheRules> = fc.constantFrom(EXPLICIT, AUTOMATIC, NONE);

/** Random prompts, each possibly sharing a head with the one before; times unknown or within minutes. */
const requestsArb: fc.Arbitrary<ProviderRequest[]> = fc.array(
  fc.record({
    messages: fc.array(messageArb, { maxLength: 8 }),
    atMs: fc.integer({ min: 0, max: 1_000_000 }),
    completionTokens: fc.nat(500),
  }),
  { maxLength: 10 },
);

/** An append-only session: each prompt is the previous one plus new messages; times increase. */
const appendOnlyArb: fc.Arbitrary<ProviderRequest[]> = fc
  .array(fc.tuple(fc.array(messageArb, { maxLength: 4 }), fc.integer({ min: 0, max: 600_000 })), { maxLength: 12 })
  .map((steps) => {
    let prompt: PromptMessage[] = [];
    let at = 0;
    return steps.map(([added, gap]) => {
      prompt = [...prompt, ...added];
      at += gap;
      return { messages: prompt, atMs: at, completionTokens: 1 };
    });
  });

describe("cache model properties", () => {
  it("cached + uncached = prompt tokens, writes never exceed uncached, for every request", () => {
    fc.assert(
      fc.property(requestsArb, rulesArb, (requests, rules) => {
        for (const [i, estimate] of estimateCache(requests, rules).entries()) {
          const prompt = requests[i]?.messages.reduce((s, m) => s + m.tokens, 0);
          expect(estimate.cachedTokens + estimate.uncachedTokens).toBe(prompt);
          expect(estimate.cacheWriteTokens).toBeLessThanOrEqual(estimate.uncachedTokens);
          expect(estimate.cachedTokens).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  it("append-only sequences never count a break nor a changed index", () => {
    fc.assert(
      fc.property(appendOnlyArb, rulesArb, (requests, rules) => {
        for (const estimate of estimateCache(requests, rules)) {
          expect(estimate.cacheBreak).toBe(false);
          expect(estimate.earliestChangedIndex).toBeNull();
        }
      }),
    );
  });
});
