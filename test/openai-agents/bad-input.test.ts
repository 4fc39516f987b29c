/**
 * Items the SDK would not produce, and values a JSON store cannot keep: typed errors before anything is
 * written, and nothing stored lost.
 */
import type { AgentInputItem } from "@openai/agents-core";
import { openAgentsSession } from "@palimpsest/openai-agents";
import { describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { databases, engines } from "./engines.ts";
import { expectRejection } from "./expect-error.ts";

const user = (text: string): AgentInputItem => ({ type: "message", role: "user", content: text });
const call = (callId: string): AgentInputItem => ({
  type: "function_call",
  callId,
  name: "get_weather",
  arguments: "{}",
});
const result = (callId: string): AgentInputItem => ({
  type: "function_call_result",
  callId,
  name: "get_weather",
  status: "completed",
  output: { type: "text", text: "sunny" },
});

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`bad input (${engine.name})`, () => {
    const fresh = databases(engine);

    it("refuses what the SDK never produces and keeps what was stored", async () => {
      const ours = await (await fresh()).open();
      await ours.addItems([user("hello"), call("c1"), result("c1")]);
      const stored = await ours.getItems();
      const seq = ours.session.state.lastSeq;

      await expectRejection(ours.addItems([{ type: "telepathy", thought: "x" } as never]), {
        code: "VALIDATION",
        path: "items[0]",
      });
      await expectRejection(ours.addItems([user("fine"), { type: "function_call", callId: "c2" } as never]), {
        code: "VALIDATION",
        path: "items[1]",
      });
      await expectRejection(ours.addItems([result("nope")]), {
        code: "INVARIANT_VIOLATED",
        rule: "tool-result-without-live-call",
      });
      await expectRejection(ours.addItems([result("c1")]), {
        code: "INVARIANT_VIOLATED",
        rule: "duplicate-tool-result",
      });
      await expectRejection(ours.addItems([call("c1")]), {
        code: "INVARIANT_VIOLATED",
        rule: "duplicate-tool-call-id",
      });
      await expectRejection(ours.addItems([user("x"), result("c9")]), {
        code: "INVARIANT_VIOLATED",
        rule: "tool-result-without-live-call",
      });
      await expectRejection(ours.addItems("not a list" as never), { code: "VALIDATION", path: "items" });
      expect(ours.session.state.lastSeq).toBe(seq);
      expect(await ours.getItems()).toEqual(stored);
    });

    it("refuses bytes, URL objects and non-finite numbers by path; drops keys whose value is undefined", async () => {
      const ours = await (await fresh()).open();
      const image = (image: unknown) =>
        ({ type: "message", role: "user", content: [{ type: "input_image", image }] }) as unknown as AgentInputItem;
      await expectRejection(ours.addItems([image(new Uint8Array([1, 2, 3]))]), {
        code: "VALIDATION",
        path: "items[0].content[0].image",
      });
      await expectRejection(ours.addItems([image(new URL("https://example.com/a.png"))]), {
        code: "VALIDATION",
        path: "items[0].content[0].image",
      });
      await expectRejection(ours.addItems([{ ...user("x"), providerData: { score: Number.NaN } } as AgentInputItem]), {
        code: "VALIDATION",
        path: "items[0].providerData.score",
      });
      expect(await ours.getItems()).toEqual([]);

      await ours.addItems([{ ...user("kept"), id: undefined, providerData: { a: 1, b: undefined } } as AgentInputItem]);
      expect(JSON.stringify(await ours.getItems())).toBe(
        JSON.stringify([{ type: "message", role: "user", content: "kept", providerData: { a: 1 } }]),
      );
    });

    it("checks its options exactly", async () => {
      await expectRejection(openAgentsSession({ url: ":memory:", sesionId: "x" } as never), {
        code: "VALIDATION",
        path: "sesionId",
      });
      const db = await fresh();
      const opened = await db.open();
      await expectRejection(openAgentsSession({ url: db.url, runtime: opened.runtime }), {
        code: "VALIDATION",
        path: "url",
      });
    });

    it("refuses every call after close() with STORAGE, as a closed store does, keeping what was stored", async () => {
      const db = await fresh();
      const ours = await db.open();
      await ours.addItems([user("kept")]);
      await ours.close();
      for (const call of [() => ours.getItems(), () => ours.addItems([user("late")]), () => ours.popItem()]) {
        const error = await rejection(call());
        expect(error).toMatchObject({ code: "STORAGE", retryable: false });
        expect(error.message).toBe("session: this session is closed: open another with openAgentsSession");
      }
      const again = await db.open({ sessionId: ours.session.id });
      expect(await again.getItems()).toEqual([expect.objectContaining({ role: "user", content: "kept" })]);
      await again.close();
    });
  });
}
