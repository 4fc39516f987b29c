import { Agent, type AgentInputItem, protocol, Runner, setTracingDisabled, tool } from "@openai/agents-core";
import { assistantMessage, functionCall, ScriptedModel, type ScriptedModelInput } from "@openai/agents-core/testing";
import { z } from "zod";

setTracingDisabled(true);

/** A tool that answers at once. */
export const weather = tool({
  name: "get_weather",
  description: "The weather of a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `sunny in ${city}`,
});

/** A tool whose output is `size` characters (a big file). */
export function readFile(size: number) {
  return tool({
    name: "read_file",
    description: "Reads a file",
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) =>
      `${path}: ${"lorem ipsum dolor sit amet ".repeat(Math.ceil(size / 27)).slice(0, size)}`,
  });
}

/** A tool that needs approval. */
export const deleteFile = tool({
  name: "delete_file",
  description: "Deletes a file",
  parameters: z.object({ path: z.string() }),
  needsApproval: true,
  execute: async ({ path }) => `Deleted ${path}.`,
});

/** An approval flow's first run: the model calls the weather and a deletion that needs approval. */
export function approvalModel(): ScriptedModel {
  return new ScriptedModel([
    [
      functionCall("get_weather", { city: "Oslo" }, { callId: "call_w" }),
      functionCall("delete_file", { path: "/tmp/x" }, { callId: "call_d" }),
    ],
  ]);
}

/** The model's steps for one turn: `calls` parallel calls of `tool`, then an answer. */
export function turnSteps(turn: number, calls: number, toolName = "get_weather"): ScriptedModelInput[] {
  const args = (c: number) =>
    toolName === "get_weather" ? { city: `city-${turn}-${c}` } : { path: `/f/${turn}/${c}` };
  return [
    Array.from({ length: calls }, (_, c) => functionCall(toolName, args(c), { callId: `call_${turn}_${c}` })),
    [assistantMessage(`answer ${turn}`, { id: `msg_${turn}` })],
  ];
}

/** An agent on a scripted model with the given tools, and a runner that never touches the network. */
export function scripted(model: ScriptedModel, tools: Agent["tools"] = [weather]) {
  return { agent: new Agent({ name: "assistant", model, tools }), runner: new Runner({ tracingDisabled: true }) };
}

/** The items of one model request (`request.input`), as an array. */
export function inputItems(input: string | readonly AgentInputItem[]): AgentInputItem[] {
  return typeof input === "string" ? [{ role: "user", content: input }] : [...input];
}

/** Every problem in a model input: items the SDK's schema refuses, results without calls, calls without results, duplicates. */
export function inputProblems(input: readonly AgentInputItem[]): string[] {
  const problems: string[] = [];
  const calls = new Set<string>();
  const results = new Set<string>();
  input.forEach((item, i) => {
    if (!protocol.ModelItem.safeParse(item).success) problems.push(`item ${i} (${item.type}) fails protocol.ModelItem`);
    const fields = item as Record<string, unknown>;
    const id = typeof fields.callId === "string" ? fields.callId : undefined;
    if (id === undefined) return;
    const isResult = /_result$|_output$/.test(String(fields.type));
    if (isResult) {
      if (!calls.has(id)) problems.push(`result ${id} without an earlier call`);
      if (results.has(id)) problems.push(`result ${id} twice`);
      results.add(id);
    } else {
      if (calls.has(id)) problems.push(`call ${id} twice`);
      calls.add(id);
    }
  });
  for (const id of calls) if (!results.has(id)) problems.push(`call ${id} without a result`);
  return problems;
}

/** Short names of items, `type:callId` or `role`, for readable assertions. */
export function shapes(items: readonly AgentInputItem[]): string[] {
  return items.map((item) => {
    const fields = item as Record<string, unknown>;
    const type = String(fields.type ?? "message");
    if (typeof fields.callId === "string") return `${type}:${fields.callId}`;
    return type === "message" ? `${type}/${String(fields.role)}` : type;
  });
}
