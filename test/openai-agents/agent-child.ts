/**
 * A second process for the adapter's tests (run through tsx by startScript): opens the session at a
 * URL and runs what the scenario says, printing JSON lines (`input` per model call, then `done`).
 *   continue <url> <sessionId> <turn> <calls>       one more turn of turnSteps
 *   approve  <url> <sessionId> <stateFile>          RunState.fromString, approve everything, resume
 *   interrupt <url> <sessionId>                     run until the approval interruption, keep it with the session
 *   resume   <url> <sessionId>                      the kept run: approve everything, resume
 *   writer   <url> <sessionId> <prefix> <turns>     `turns` turns with call ids under `prefix`
 */
import { readFileSync } from "node:fs";
import { RunState } from "@openai/agents-core";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { openAgentsSession } from "@palimpsest/openai-agents";
import { approvalModel, deleteFile, inputItems, scripted, turnSteps, weather } from "./agents-harness.ts";

const [scenario, url, sessionId, a, b] = process.argv.slice(2);
const print = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);
const session = await openAgentsSession({ url: url as string, sessionId: sessionId as string });
try {
  if (scenario === "continue") {
    const turn = Number(a);
    const model = new ScriptedModel(turnSteps(turn, Number(b)));
    const { agent, runner } = scripted(model);
    const result = await runner.run(agent, `question ${turn}`, { session });
    for (const call of model.calls) print({ input: inputItems(call.request.input) });
    print({ done: result.finalOutput });
  } else if (scenario === "approve") {
    const model = new ScriptedModel([[assistantMessage("Deleted it.", { id: "m_done" })]]);
    const { agent, runner } = scripted(model, [deleteFile, weather]);
    const state = await RunState.fromString(agent, readFileSync(a as string, "utf8"));
    for (const interruption of state.getInterruptions()) state.approve(interruption);
    const result = await runner.run(agent, state, { session });
    for (const call of model.calls) print({ input: inputItems(call.request.input) });
    print({ done: result.finalOutput });
  } else if (scenario === "interrupt") {
    const { agent, runner } = scripted(approvalModel(), [deleteFile, weather]);
    const result = await runner.run(agent, "clean up", { session });
    await session.saveInterruptedRun(result.state);
    print({ interrupted: result.interruptions.map((i) => i.name) });
  } else if (scenario === "resume") {
    const model = new ScriptedModel([[assistantMessage("Deleted it.", { id: "m_done" })]]);
    const { agent, runner } = scripted(model, [deleteFile, weather]);
    const state = await session.interruptedRun(agent);
    if (state === undefined) throw new Error("no interrupted run kept with the session");
    for (const interruption of state.getInterruptions()) state.approve(interruption);
    const result = await runner.run(agent, state, { session });
    for (const call of model.calls) print({ input: inputItems(call.request.input) });
    print({ done: result.finalOutput, keptAfter: (await session.interruptedRun(agent)) !== undefined });
  } else if (scenario === "writer") {
    const turns = Number(b);
    const model = new ScriptedModel(
      Array.from({ length: turns }, (_, t) => [
        [
          functionCall("get_weather", { city: `${a}-${t}-0` }, { callId: `${a}_${t}_0` }),
          functionCall("get_weather", { city: `${a}-${t}-1` }, { callId: `${a}_${t}_1` }),
        ],
        [assistantMessage(`${a} answer ${t}`)],
      ]).flat(),
    );
    const { agent, runner } = scripted(model);
    for (let t = 0; t < turns; t++) await runner.run(agent, `${a} question ${t}`, { session });
    print({ done: turns });
  } else throw new Error(`unknown scenario ${scenario}`);
} finally {
  await session.close();
}
