/**
 * Own `__proto__` keys in items (providerData of an item and of a content part, as JSON.parse makes them)
 * are kept byte for byte through addItems, the log and getItems in a new process, as MemorySession keeps
 * them. Nothing reaches Object.prototype.
 */
import { type AgentInputItem, MemorySession, protocol } from "@openai/agents-core";
import { assistantMessage, ScriptedModel } from "@openai/agents-core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { inputItems, scripted } from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";

/** Items whose providerData hold own `__proto__` keys, at the top, nested and in a content part. */
const ITEMS_JSON = JSON.stringify([
  {
    type: "message",
    role: "user",
    content: [{ type: "input_text", text: "hi", providerData: { PROTO: { polluted: "part" }, k: 1 } }],
    providerData: { PROTO: { polluted: "item" }, nested: { PROTO: [1, 2] } },
  },
  { type: "function_call", callId: "c1", name: "f", arguments: "{}", providerData: { PROTO: { polluted: "call" } } },
  {
    type: "function_call_result",
    callId: "c1",
    name: "f",
    status: "completed",
    output: [{ type: "input_text", text: "r", providerData: { PROTO: { polluted: "output" } } }],
  },
]).replaceAll('"PROTO"', '"__proto__"');

/** Provider data with an own `__proto__` key, as a provider's JSON response gives it. */
const providerData = (what: string): Record<string, unknown> =>
  JSON.parse(`{"__proto__":{"polluted":"${what}"},"x":1}`);

/** True when nothing was added to Object.prototype. */
function prototypeClean(): boolean {
  const probe: Record<string, unknown> = {};
  return probe.polluted === undefined && !Object.getOwnPropertyNames(Object.prototype).includes("polluted");
}

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`own __proto__ keys in items (${engine.name})`, () => {
    const fresh = databases(engine);
    afterEach(() => expect(prototypeClean()).toBe(true));

    it("keeps them through addItems, the log and getItems in a new process, byte for byte", async () => {
      const items = JSON.parse(ITEMS_JSON) as AgentInputItem[];
      for (const item of items) expect(protocol.ModelItem.safeParse(item).success).toBe(true);
      const db = await fresh();
      const ours = await db.open();
      await ours.addItems(items);
      expect(JSON.stringify(await ours.getItems())).toBe(ITEMS_JSON);
      const loaded = await (await db.open({ sessionId: ours.session.id })).getItems();
      expect(JSON.stringify(loaded)).toBe(ITEMS_JSON);
      const [message] = loaded as unknown as { providerData: object; content: { providerData: object }[] }[];
      expect(Object.hasOwn(message?.providerData ?? {}, "__proto__")).toBe(true);
      expect(Object.hasOwn(message?.content[0]?.providerData ?? {}, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(message?.providerData)).toBe(Object.prototype);
      const memory = new MemorySession();
      await memory.addItems(JSON.parse(ITEMS_JSON));
      expect(JSON.stringify(await memory.getItems())).toBe(ITEMS_JSON);
    });

    // The Runner (0.20) sends the model its input as given, but hands the session a copy made by
    // assignment, in which an own __proto__ key has become the object's prototype: no longer JSON data.
    // The session refuses that copy by path (MemorySession keeps the odd object); nothing is dropped unseen.
    it("refuses, by path and storing nothing, the Runner's copy of an input item that held one", async () => {
      const model = new ScriptedModel([
        [assistantMessage("Sunny.", { id: "m1", providerData: providerData("message") })],
      ]);
      const { agent, runner } = scripted(model);
      const ours = await (await fresh()).open();
      const question = JSON.parse(ITEMS_JSON).slice(0, 1) as AgentInputItem[];
      const error = await rejection(runner.run(agent, question, { session: ours }));
      expect(error.code).toBe("VALIDATION");
      expect((error.details as { path?: string }).path).toBe("items[0].content[0].providerData");
      expect(JSON.stringify(inputItems(model.calls[0]?.request.input ?? []))).toBe(JSON.stringify(question));
      expect(await ours.getItems()).toEqual([]);
    });
  });
}
