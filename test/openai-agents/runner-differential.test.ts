/**
 * The adapter under the SDK's own Runner and ScriptedModel, against the SDK's MemorySession: a
 * multi-turn run with several tool calls per turn stores the same items and sends the same model inputs.
 */
import { MemorySession, type Session, Usage } from "@openai/agents-core";
import { assistantMessage, modelResponse, ScriptedModel } from "@openai/agents-core/testing";
import { describe, expect, it } from "vitest";
import { inputItems, inputProblems, scripted, turnSteps } from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";

const TURNS = [3, 1, 4, 2];

/** Runs the scripted turns on `session` (streamed or not) and returns every model input. */
async function runTurns(session: Session, stream = false) {
  const model = new ScriptedModel(TURNS.flatMap((calls, t) => turnSteps(t + 1, calls)));
  const { agent, runner } = scripted(model);
  for (let t = 1; t <= TURNS.length; t++) {
    if (stream) {
      const streamed = await runner.run(agent, `question ${t}`, { session, stream: true });
      for await (const _ of streamed) {
        // drain the events
      }
      await streamed.completed;
      expect(streamed.finalOutput).toBe(`answer ${t}`);
    } else {
      const result = await runner.run(agent, `question ${t}`, { session });
      expect(result.finalOutput).toBe(`answer ${t}`);
    }
  }
  model.assertComplete();
  return model.calls.map((call) => inputItems(call.request.input));
}

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(
    `Runner with PalimpsestAgentsSession vs MemorySession (${engine.name})`,
    () => {
      const fresh = databases(engine);

      it("stores the same items and sends the same model inputs, and a new process reads them back", async () => {
        const memory = new MemorySession();
        const expectedInputs = await runTurns(memory);
        const expectedItems = await memory.getItems();
        const db = await fresh();
        const ours = await db.open();
        const inputs = await runTurns(ours);

        expect(inputs).toEqual(expectedInputs);
        for (const input of inputs) expect(inputProblems(input)).toEqual([]);
        expect(await ours.getItems()).toEqual(expectedItems);
        expect(await ours.getItems(3)).toEqual(await memory.getItems(3));
        expect(await ours.getItems(0)).toEqual([]);
        // 4 turns: user, one assistant message per run of calls, a tool message per result, the answer.
        const roles = ours.session.view().messages.map((m) => m.role);
        expect(roles.filter((r) => r === "tool")).toHaveLength(3 + 1 + 4 + 2);
        expect(roles.filter((r) => r === "user")).toHaveLength(4);
        const log = await ours.runtime.store.readStream(ours.session.id);
        const turns = new Set(log.flatMap((e) => (e.type === "message.appended" ? (e.data.turnId ?? []) : [])));
        expect(turns.size).toBe(4);

        const reopened = await db.open({ sessionId: await ours.getSessionId() });
        expect(await reopened.getItems()).toEqual(expectedItems);
      });

      it("runCompaction completes each run's turn with the usage of its last model request", async () => {
        const ours = await (await fresh()).open();
        const usage = (inputTokens: number) =>
          new Usage({ requests: 1, inputTokens, outputTokens: 7, totalTokens: inputTokens + 7 });
        const model = new ScriptedModel([
          modelResponse({ output: [assistantMessage("one")], usage: usage(1_234) }),
          modelResponse({ output: [assistantMessage("two")], usage: usage(1_300) }),
        ]);
        const { agent, runner } = scripted(model);
        await runner.run(agent, "first", { session: ours });
        await runner.run(agent, "second", { session: ours });
        const turns = (await ours.runtime.store.readStream(ours.session.id)).filter((e) => e.type === "turn.completed");
        expect(turns.map((e) => (e.data as { usage?: unknown }).usage)).toEqual([
          { promptTokens: 1_234, completionTokens: 7 },
          { promptTokens: 1_300, completionTokens: 7 },
        ]);
      });

      it("streamed runs: the same items and model inputs as MemorySession", async () => {
        const memory = new MemorySession();
        const expectedInputs = await runTurns(memory, true);
        const ours = await (await fresh()).open();
        expect(await runTurns(ours, true)).toEqual(expectedInputs);
        expect(await ours.getItems()).toEqual(await memory.getItems());
        expect(ours.session.state.pendingCalls.size).toBe(0);
      });
    },
  );
}
