import type { CachePrices } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { createMemoryStore } from "@palimpsest/store/testing";
import { describe, expect, it } from "vitest";
import { toolStep } from "../support/exchange.ts";

/** Micro passes the runtime ran after `turns` turns of tool work under cost-optimal with these summarizer prices. */
async function microPassesWith(summarizerPrices: CachePrices | undefined, turns: number): Promise<number> {
  const runtime = new Palimpsest({
    store: createMemoryStore(),
    counterFor: createTokenCounter,
    compaction: {
      micro: {},
      policy: "cost-optimal",
      profile: "anthropic",
      contextWindow: 64_000,
      ...(summarizerPrices === undefined ? {} : { summarizerPrices }),
    },
  });
  try {
    const session = await runtime.startSession();
    for (let n = 0; n < turns; n++) {
      await session.append(toolStep(n, `line ${n} of output `.repeat(400)), { turnId: `turn${n}` });
      await session.completeTurn(`turn${n}`);
    }
    const log = await runtime.store.readStream(session.id);
    return log.filter((e) => e.type === "messages.superseded" && e.data.mode === "micro").length;
  } finally {
    await runtime.close();
  }
}

describe("micro passes under cost-optimal after a turn", () => {
  it("weigh the summarizer's prices the runtime is given, as replay's do", async () => {
    const turns = 30;
    const atProfilePrices = await microPassesWith(undefined, turns);
    // A summarizer a million times dearer than the agent's model: absorbing never pays on a warm cache.
    const dear: CachePrices = { input: 3e6, output: 1.5e7, cachedRead: 3e5, cacheWrite: 3.75e6 };
    const atDearPrices = await microPassesWith(dear, turns);
    expect(atProfilePrices).toBeGreaterThan(0);
    expect(atDearPrices).toBe(0);
  });
});
