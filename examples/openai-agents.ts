/**
 * The OpenAI Agents SDK on Palimpsest: an agent's runs stored in a Palimpsest session through
 * `openAgentsSession`, then forked, compacted, popped and cleared, with the originals one `expand` away.
 * A scripted model stands in for OpenAI (no network, no key): put your own model on the agent.
 */
import { Agent, run, setTracingDisabled, tool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { openAgentsSession } from "palimpsest/openai-agents";
import { z } from "zod";

setTracingDisabled(true);
const weather = tool({
  name: "get_weather",
  description: "The weather of a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `${city}: sunny, ${"light wind from the west, ".repeat(40)}`,
});
const cities = ["Oslo", "Rome", "Lima", "Pune", "Kyiv", "Nuuk"];
const model = new ScriptedModel(
  cities.flatMap((city, i) => [
    [functionCall("get_weather", { city }, { callId: `call_${i}` })],
    [assistantMessage(`Sunny in ${city}.`)],
  ]),
);
const agent = new Agent({ name: "assistant", model, tools: [weather] });

const session = await openAgentsSession({ url: "agents.db", model: "gpt-4.1", contextWindow: 4_000 }); // or postgres://…
for (const city of cities) await run(agent, `What is the weather in ${city}?`, { session });
const items = await session.getItems();
console.log(
  `${items.length} items in session ${await session.getSessionId()}: ${items[0]?.type}, ${items[1]?.type}, …`,
);

const branch = await session.fork({ atTurn: 1 }); // the history as it stood after the first turn
model.enqueue([assistantMessage("Only Oslo, then.")]);
const edited = await run(agent, "Forget the others: only Oslo.", { session: branch });
console.log(`fork: ${edited.finalOutput} ${(await branch.getItems()).length} items; the parent keeps ${items.length}`);

await session.runCompaction({ force: true }); // what the Runner calls after each turn, forced here
const [compaction] = await session.session.history();
const compacted = await session.getItems();
const summary = compacted.find((i) => JSON.stringify(i).includes("CONTEXT SUMMARY")) as { role?: string } | undefined;
console.log(`compaction ${compaction?.mode}: ${compacted.length} items, the summary an item of role ${summary?.role}`);

const popped = await session.popItem(); // the newest item leaves the view; the log keeps it
await session.clearSession(); // one retraction of everything left
const cleared = (await session.session.history()).at(-1);
const originals = await session.session.expand(cleared?.compactionId ?? "");
console.log(
  `popped ${popped?.type}; cleared: ${(await session.getItems()).length} items, ${originals.length} messages one expand away`,
);
await session.close();

// A tool that needs approval: the run stops at the call, and the interrupted run is kept with the session.
const deleteFile = tool({
  name: "delete_file",
  description: "Deletes a file",
  parameters: z.object({ path: z.string() }),
  needsApproval: true,
  execute: async ({ path }) => `deleted ${path}`,
});
model.enqueue([functionCall("delete_file", { path: "/tmp/report.txt" }, { callId: "call_del" })]);
const careful = new Agent({ name: "careful", model, tools: [deleteFile] });
const asking = await openAgentsSession({ url: "agents.db" });
const interrupted = await run(careful, "Delete /tmp/report.txt", { session: asking });
await asking.saveInterruptedRun(interrupted.state); // kept in the log with the call that waits
const sessionId = await asking.getSessionId();
await asking.close();

// Later, in any process (the approval arrived by mail): the session id is all it needs.
const approving = await openAgentsSession({ url: "agents.db", sessionId });
const state = await approving.interruptedRun(careful); // a RunState for this agent, or undefined
for (const request of state?.getInterruptions() ?? []) state?.approve(request);
model.enqueue([assistantMessage("Deleted /tmp/report.txt.")]);
const resumed = state === undefined ? undefined : await run(careful, state, { session: approving });
const kept = (await approving.interruptedRun(careful)) !== undefined;
console.log(`approved from the session id alone: ${resumed?.finalOutput} (still kept: ${kept})`);
await approving.close();
