/**
 * Compaction under the Runner: a 30-turn run with large tool outputs and a small window compacts
 * through runCompaction, and every model input keeps calls with their results, holds nothing twice and
 * fits the window. Also a streamed run cancelled during a tool call, then resumed, as MemorySession has it.
 */
import { type AgentInputItem, MemorySession, type Session, tool } from "@openai/agents-core";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { inputItems, inputProblems, readFile, scripted, shapes, turnSteps } from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";

const WINDOW = 8_000;
const TURNS = 30;
const counter = await createTokenCounter("o200k_base");

/** The tokens of a model input's text: messages, call arguments, outputs (a lower bound of what the provider counts). */
function inputTokens(items: readonly AgentInputItem[]): number {
  return items.reduce((n, item) => n + counter.countText(JSON.stringify(item)), 0);
}

/** Runs TURNS turns of two 2,000-character file reads each on `session`; every model input. */
async function longRun(session: Session): Promise<AgentInputItem[][]> {
  const model = new ScriptedModel(Array.from({ length: TURNS }, (_, t) => turnSteps(t + 1, 2, "read_file")).flat());
  const { agent, runner } = scripted(model, [readFile(2_000)]);
  for (let t = 1; t <= TURNS; t++) await runner.run(agent, `read the files of turn ${t}`, { session });
  model.assertComplete();
  return model.calls.map((c) => inputItems(c.request.input));
}

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`compaction and cancellation under the Runner (${engine.name})`, () => {
    const fresh = databases(engine);

    for (const policy of ["prune-first", "summary"] as const) {
      it(`30 turns of large outputs in an ${WINDOW}-token window (${policy}): every input valid and within the window`, async () => {
        const db = await fresh();
        const ours = await db.open({ contextWindow: WINDOW, compaction: { policy } });
        const inputs = await longRun(ours);
        const memory = new MemorySession();
        const memoryInputs = await longRun(memory);

        for (const [i, input] of inputs.entries()) {
          expect(inputProblems(input), `model call ${i}`).toEqual([]);
          expect(inputTokens(input), `model call ${i}`).toBeLessThanOrEqual(WINDOW);
        }
        const largest = Math.max(...memoryInputs.map(inputTokens));
        expect(largest).toBeGreaterThan(3 * WINDOW);
        const history = await ours.session.history();
        expect(history.length).toBeGreaterThan(1);
        expect(history.every((c) => c.trigger === "auto")).toBe(true);
        // The newest turn stays verbatim; a new process reads the compacted view back.
        const items = await ours.getItems();
        expect(items.slice(-6)).toEqual((await memory.getItems()).slice(-6));
        const reopened = await db.open({ sessionId: ours.session.id });
        expect(await reopened.getItems()).toEqual(items);
      });
    }

    it("a streamed run cancelled during a tool call, then resumed: the same items and input as MemorySession", async () => {
      const run = async (session: Session) => {
        const controller = new AbortController();
        const slow = tool({
          name: "slow",
          description: "takes a while",
          parameters: z.object({}),
          execute: async () => {
            controller.abort();
            return "done";
          },
        });
        const model = new ScriptedModel([
          [functionCall("slow", {}, { callId: "call_s1" })],
          [assistantMessage("never reached")],
        ]);
        const { agent, runner } = scripted(model, [slow]);
        const cancelled = await runner.run(agent, "go", { session, stream: true, signal: controller.signal });
        for await (const _ of cancelled) {
          // drain
        }
        await cancelled.completed.catch(() => {});
        const afterCancel = await session.getItems();
        model.enqueue([assistantMessage("continued", { id: "m9" })]);
        const resumed = await runner.run(agent, "continue", { session, stream: true });
        for await (const _ of resumed) {
          // drain
        }
        await resumed.completed;
        return { afterCancel, input: inputItems(model.lastCall?.request.input ?? []), final: resumed.finalOutput };
      };
      const memory = new MemorySession();
      const ours = await (await fresh()).open();
      const expected = await run(memory);
      const got = await run(ours);
      expect(got).toEqual(expected);
      expect(shapes(got.afterCancel)).toEqual(["message/user"]);
      expect(await ours.getItems()).toEqual(await memory.getItems());
      expect(inputProblems(got.input)).toEqual([]);
    });
  });
}
