/**
 * The append path's warm-up (openPalimpsest runs it while the store opens): it runs a step through
 * validation, counting, the decider and the search terms for each encoding without throwing, so a change
 * to a schema it feeds cannot silently turn it into a no-op (openPalimpsest ignores its failure).
 */
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { describe, expect, it } from "vitest";
import { warmUpAppendPath } from "../../packages/runtime/src/palimpsest/warm-up.ts";

describe("warmUpAppendPath", () => {
  for (const encoding of ["o200k_base", "cl100k_base"] as const) {
    it(`runs a step through the append path's CPU work (${encoding})`, async () => {
      await expect(warmUpAppendPath(await createTokenCounter(encoding))).resolves.toBeUndefined();
    });
  }
});
