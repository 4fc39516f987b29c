/**
 * A session's tokenizer starts loading when the session is started or resumed, not at its first count: an
 * agent calls its model between the two, so the first append finds it loaded (cl100k_base, for older OpenAI
 * models, is not loaded at open). A counterFor that fails does not fail the start; the first count reports it.
 */
import type { Encoding, TokenCounter } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { createMemoryStore } from "@palimpsest/store/testing";
import { describe, expect, it } from "vitest";

/** counterFor over createTokenCounter, recording each encoding asked for. */
function recordingCounter() {
  const asked: Encoding[] = [];
  const counterFor = (encoding: Encoding): Promise<TokenCounter> => {
    asked.push(encoding);
    return createTokenCounter(encoding);
  };
  return { asked, counterFor };
}

describe("a session's tokenizer, loaded ahead of its first count", () => {
  it("is asked for when a session starts and when one is resumed, before any message is counted", async () => {
    const store = createMemoryStore();
    const { asked, counterFor } = recordingCounter();
    const runtime = new Palimpsest({ store, counterFor });
    const session = await runtime.startSession({ model: "gpt-4-turbo" });
    expect(asked).toEqual(["cl100k_base"]);

    const other = recordingCounter();
    const elsewhere = new Palimpsest({ store: store.connect(), counterFor: other.counterFor });
    await elsewhere.resume(session.id);
    expect(other.asked).toEqual(["cl100k_base"]);
    await Promise.all([runtime.close(), elsewhere.close()]);
  });

  it("does not fail a start when the load fails; the first count reports it", async () => {
    const broken = new Error("tokenizer unavailable");
    let calls = 0;
    const runtime = new Palimpsest({
      store: createMemoryStore(),
      counterFor: () => {
        calls += 1;
        if (calls === 1) throw broken;
        return Promise.reject(broken);
      },
    });
    const session = await runtime.startSession({ model: "gpt-4" });
    await expect(session.append({ role: "user", content: "hello" })).rejects.toThrow("tokenizer unavailable");
    expect(session.state.live).toEqual([]);
    await runtime.close();
  });
});
