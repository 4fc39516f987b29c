/**
 * A session mirrored from the Claude Agent SDK, handed off portably and continued by another vendor's
 * SDK: as an OpenAI Agents SDK session under the Runner, and as an AI SDK conversation under
 * generateText. Every request each one sends keeps calls with their results and carries no Anthropic
 * signature; the mirror's own session takes no more folds.
 */
import { assistantMessage, ScriptedModel } from "@openai/agents-core/testing";
import { openConversation } from "@palimpsest/ai-sdk";
import { openSessionStore, type PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { openAgentsSession } from "@palimpsest/openai-agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccepted } from "../ai-sdk/request-checks.ts";
import type { CliDatabase } from "../cli/harness.ts";
import { inputItems, inputProblems, scripted } from "../openai-agents/agents-harness.ts";
import { DATABASES, EXAMPLE_ENTRIES, EXAMPLE_KEY } from "./example-session.ts";

/** The example's entries with a signed thinking block on its last assistant entry (in the view), as Claude writes them. */
const LAST_ASSISTANT = EXAMPLE_ENTRIES.findLastIndex((e) => e.type === "assistant");
const ENTRIES = EXAMPLE_ENTRIES.map((entry, i) => {
  if (i !== LAST_ASSISTANT) return entry;
  const message = entry.message as { content: unknown[] };
  const thinking = { type: "thinking", thinking: "Check the tests first.", signature: "sig-EXAMPLE" };
  return { ...entry, message: { ...message, content: [thinking, ...message.content] } };
});

for (const [name, make] of DATABASES) {
  describe.skipIf(make === undefined)(`a mirrored Claude session continued elsewhere (${name})`, () => {
    let db: CliDatabase;
    let store: PalimpsestSessionStore;
    let successorId: string;
    let viewLength: number;
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      store = await openSessionStore({ url: db.url });
      await store.append(EXAMPLE_KEY, ENTRIES);
      await store.flush();
      const [mirrored = ""] = await store.sessionIds(EXAMPLE_KEY);
      const from = await store.runtime.resume(mirrored);
      viewLength = from.view().messages.length;
      expect(JSON.stringify(from.view().messages)).toContain("sig-EXAMPLE");
      successorId = (await store.runtime.handOff(from, { portable: true, reason: "to another vendor" })).id;
      const seal = (await store.runtime.store.readStream(mirrored)).at(-1);
      expect(seal?.type === "session.handed-off" && seal.data.dropped?.reasoning).toBe(1);
    });
    afterAll(async () => {
      await store?.close();
      await db?.dispose();
    });

    it("the Runner continues it with the OpenAI Agents SDK: its input pairs every call with its result", async () => {
      const session = await openAgentsSession({ url: db.url, sessionId: successorId });
      const items = await session.getItems();
      expect(items.length).toBeGreaterThan(0);
      expect(JSON.stringify(items)).not.toContain("sig-EXAMPLE");
      const model = new ScriptedModel([[assistantMessage("picking it up")]]);
      const { agent, runner } = scripted(model);
      const result = await runner.run(agent, "Carry on.", { session });
      expect(result.finalOutput).toBe("picking it up");
      const input = inputItems(model.lastCall?.request.input ?? []);
      expect(inputProblems(input)).toEqual([]);
      expect(input.length).toBeGreaterThan(viewLength / 2);
      await session.close();
    });

    it("generateText continues it with the AI SDK: the loaded conversation is an accepted request", async () => {
      const conversation = await openConversation({ url: db.url, sessionId: successorId });
      const loaded = await conversation.load();
      expect(loaded.messages.length).toBeGreaterThan(0);
      expect(JSON.stringify(loaded)).not.toContain("sig-EXAMPLE");
      await expectAccepted(loaded);
      await conversation.close();
    });
  });
}
