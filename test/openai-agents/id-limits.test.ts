/**
 * The ids an Agents session takes from its caller (an item's call id, a history transaction's operationId,
 * the session id) have Palimpsest's limits (ID_LIMITS), the same on both engines: at the limit they are
 * stored and read back as given, one code unit over they are VALIDATION naming the field, nothing written.
 */
import { type AgentInputItem, MemorySession } from "@openai/agents-core";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { openAgentsSession } from "@palimpsest/openai-agents";
import { describe, expect, it } from "vitest";
import { idAtLimit, idOverLimit } from "../support/limit-ids.ts";
import { scripted } from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";
import { expectRejection } from "./expect-error.ts";

const user = (text: string): AgentInputItem => ({ type: "message", role: "user", content: text });
const call = (callId: string): AgentInputItem => ({ type: "function_call", callId, name: "f", arguments: "{}" });
const result = (callId: string): AgentInputItem => ({
  type: "function_call_result",
  callId,
  name: "f",
  status: "completed",
  output: { type: "text", text: "done" },
});
const search = (callId: string): AgentInputItem =>
  ({ type: "tool_search_call", call_id: callId, execution: "client", arguments: {}, status: "completed" }) as never;

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`id limits of an Agents session (${engine.name})`, () => {
    const fresh = databases(engine);

    it("stores call ids the Runner gets from the model at the limit, as MemorySession does", async () => {
      const callIds = [idAtLimit("toolCall", "bmp", 11), idAtLimit("toolCall", "astral", 12)];
      const run = async (session: MemorySession | Awaited<ReturnType<Awaited<ReturnType<typeof fresh>>["open"]>>) => {
        const model = new ScriptedModel([
          callIds.map((callId, i) => functionCall("get_weather", { city: `city ${i}` }, { callId })),
          [assistantMessage("Both sunny.")],
        ]);
        const { agent, runner } = scripted(model);
        await runner.run(agent, "Weather?", { session });
        return session.getItems();
      };
      const expected = await run(new MemorySession());
      const db = await fresh();
      const ours = await db.open();
      expect(await run(ours)).toEqual(expected);
      expect(await (await db.open({ sessionId: ours.session.id })).getItems()).toEqual(expected);
      expect(ours.session.view().messages[1]?.toolCalls?.map((c) => c.id)).toEqual(callIds);
    });

    it("takes a session id and an operationId at their limits", async () => {
      const db = await fresh();
      const sessionId = idAtLimit("session", "bmp", 13);
      const ours = await db.open({ sessionId });
      expect(await ours.getSessionId()).toBe(sessionId);
      const operationId = idAtLimit("idempotencyKey", "bmp", 14);
      const items = [user("hi"), call(idAtLimit("toolCall", "bmp", 15)), result(idAtLimit("toolCall", "bmp", 15))];
      const append = { operationId, transaction: { type: "append_items" as const, items } };
      await ours.applyHistoryTransaction(append);
      await (await db.open({ sessionId })).applyHistoryTransaction(append); // a retry: nothing more
      expect(await (await db.open({ sessionId })).getItems()).toEqual(items);
    });

    it("refuses ids one code unit over their limits with VALIDATION naming the field, writing nothing", async () => {
      const db = await fresh();
      const ours = await db.open();
      await ours.addItems([user("hello"), call("c1"), result("c1")]);
      const stored = await ours.getItems();
      const seq = ours.session.state.lastSeq;
      const over = idOverLimit("toolCall", "bmp", 16);
      await expectRejection(ours.addItems([user("x"), call(over)]), { code: "VALIDATION", path: "items[1].callId" });
      await expectRejection(ours.addItems([result(over)]), { code: "VALIDATION", path: "items[0].callId" });
      await expectRejection(ours.addItems([search(over)]), { code: "VALIDATION", path: "items[0].call_id" });
      await expectRejection(
        ours.applyHistoryTransaction({
          operationId: idOverLimit("idempotencyKey", "bmp", 17),
          transaction: { type: "append_items", items: [user("y")] },
        }),
        { code: "VALIDATION", path: "operationId" },
      );
      await expectRejection(openAgentsSession({ url: db.url, sessionId: idOverLimit("session", "astral", 18) }), {
        code: "VALIDATION",
        path: "sessionId",
      });
      expect(ours.session.state.lastSeq).toBe(seq);
      expect(await (await db.open({ sessionId: ours.session.id })).getItems()).toEqual(stored);
      expect((await ours.runtime.sessions()).map((s) => s.sessionId)).toEqual([ours.session.id]);
    });
  });
}
