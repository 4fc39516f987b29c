/**
 * Counting a 50 MB blob: in `pnpm test:long` only (vitest.config.ts LONG_ONLY), since it takes 25 s of
 * the README's test command alone. The sliced and long-run paths it exercises are tested on smaller
 * texts in count-long-runs.test.ts.
 */
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { describe, expect, it } from "vitest";
import { BASE64, fromAlphabet } from "./seeded-blobs.ts";

describe("counting a 50 MB blob", () => {
  it("completes, and counts what 50 one-megabyte pieces of it count (linear, not quadratic)", {
    timeout: 300_000,
  }, async () => {
    const counter = await createTokenCounter("o200k_base");
    const mb = fromAlphabet(BASE64, 1 << 20, 9);
    const whole = mb.repeat(50);
    // Cut at a megabyte boundary, base64 pieces do not straddle it except the one piece at the seam.
    const one = counter.countText(mb);
    const total = counter.countText(whole);
    expect(Math.abs(total - 50 * one)).toBeLessThanOrEqual(50 * 4);
    expect(total).toBeGreaterThan(0);
  });
});
