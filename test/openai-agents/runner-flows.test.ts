/**
 * Runner flows that reach the session's optional capabilities, against MemorySession: an output
 * guardrail that trips after tool calls (the blocked-output history transaction), and server
 * compaction items arriving around an approval interruption, streamed and not.
 */
import {
  Agent,
  type AgentInputItem,
  MemorySession,
  Runner,
  RunState,
  type Session,
  type SessionHistoryTransactionArgs,
} from "@openai/agents-core";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { describe, expect, it } from "vitest";
import { deleteFile, inputItems, inputProblems, scripted, shapes, weather } from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";

/** `session` with a log of the transactions it is given (their kind and operation id without the run's uuid). */
function logged(session: Session): { session: Session; log: string[] } {
  const log: string[] = [];
  const wrapped = new Proxy(session, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (key === "applyHistoryTransaction") {
          const { transaction, operationId } = args[0] as SessionHistoryTransactionArgs;
          log.push(`${transaction.type} ${operationId.replace(/^[^:]*/, "<run>")}`);
        }
        return value.apply(target, args);
      };
    },
  });
  return { session: wrapped, log };
}

const compaction = (id: string): AgentInputItem => ({
  type: "compaction",
  id,
  encrypted_content: `ENC-${id}`,
  created_by: "server",
});

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`Runner flows (${engine.name})`, () => {
    const fresh = databases(engine);

    it("an output guardrail tripping after tool calls: the blocked-output transaction stores what MemorySession stores", async () => {
      const run = async (target: Session) => {
        const { session, log } = logged(target);
        const model = new ScriptedModel([
          [functionCall("get_weather", { city: "Oslo" }, { callId: "c1" })],
          [assistantMessage("the secret", { id: "m1" })],
          [assistantMessage("fine", { id: "m2" })],
        ]);
        const agent = new Agent({
          name: "guarded",
          model,
          tools: [weather],
          outputGuardrails: [
            {
              name: "no secrets",
              execute: async ({ agentOutput }) => ({
                tripwireTriggered: String(agentOutput).includes("secret"),
                outputInfo: {},
              }),
            },
          ],
        });
        const runner = new Runner({ tracingDisabled: true });
        const outcome = await runner.run(agent, "weather?", { session }).then(
          () => "completed",
          (error: Error) => error.name,
        );
        const blocked = shapes(await target.getItems());
        const next = await runner.run(agent, "again", { session });
        return {
          log,
          outcome,
          blocked,
          final: next.finalOutput,
          items: await target.getItems(),
          inputs: model.calls.map((c) => inputItems(c.request.input)),
        };
      };
      const expected = await run(new MemorySession());
      expect(expected.log).toEqual(["append_items <run>:2:blocked_append:0:3"]);
      expect(expected.blocked).toEqual(["message/user", "function_call:c1", "function_call_result:c1"]);
      expect(await run(await (await fresh()).open())).toEqual(expected);
    });

    for (const stream of [false, true]) {
      it(`server compaction items around an approval interruption (${stream ? "streamed" : "not streamed"}): as MemorySession`, async () => {
        const run = async (session: Session) => {
          const model = new ScriptedModel([
            [assistantMessage("first", { id: "m1" })],
            [functionCall("get_weather", { city: "Oslo" }, { callId: "c1" })],
            [compaction("cmp_1"), assistantMessage("second", { id: "m2" })],
            [compaction("cmp_2"), functionCall("delete_file", { path: "/x" }, { callId: "d1" })],
            [assistantMessage("deleted", { id: "m3" })],
            [assistantMessage("fourth", { id: "m4" })],
          ]);
          const { agent, runner } = scripted(model, [weather, deleteFile]);
          const go = async (input: string | RunState<unknown, typeof agent>) => {
            if (!stream) return runner.run<typeof agent, unknown>(agent, input, { session });
            const result = await runner.run<typeof agent, unknown>(agent, input, { session, stream: true });
            for await (const _ of result) {
              // drain
            }
            await result.completed;
            return result;
          };
          const views: string[][] = [];
          await go("one");
          await go("two");
          const interrupted = await go("three");
          views.push(shapes(await session.getItems()));
          const state = await RunState.fromString(agent, interrupted.state.toString());
          for (const interruption of state.getInterruptions()) state.approve(interruption);
          await go(state);
          views.push(shapes(await session.getItems()));
          await go("four");
          const inputs = model.calls.map((c) => inputItems(c.request.input));
          return { views, inputs, items: await session.getItems() };
        };
        const expected = await run(new MemorySession());
        const ours = await (await fresh()).open();
        const got = await run(ours);
        expect(got).toEqual(expected);
        for (const input of got.inputs) expect(inputProblems(input)).toEqual([]);
        expect((await ours.session.history()).map((c) => c.mode)).toContain("import");
      });
    }
  });
}
