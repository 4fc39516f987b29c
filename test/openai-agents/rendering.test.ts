/**
 * Messages without items of their own (another writer's appends, stubs, summaries) rendered as items:
 * each a valid `protocol.ModelItem`, a stub of the result kind its call expects, reasoning dropped.
 */
import { type AgentInputItem, protocol } from "@openai/agents-core";
import type { PalimpsestAgentsSession } from "@palimpsest/openai-agents";
import { describe, expect, it } from "vitest";
import { shapes } from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";

const calls: AgentInputItem[] = [
  { type: "message", role: "user", content: "patch and run" },
  { type: "shell_call", callId: "sh", status: "completed", action: { commands: ["ls"] } },
  { type: "apply_patch_call", callId: "ap", status: "completed", operation: { type: "delete_file", path: "a.ts" } },
  { type: "function_call", callId: "fn", name: "lookup", arguments: '{"q":1}' },
];
const results: AgentInputItem[] = [
  {
    type: "shell_call_output",
    callId: "sh",
    output: [{ stdout: "a.ts\n".repeat(50), stderr: "", outcome: { type: "exit", exitCode: 0 } }],
  },
  { type: "apply_patch_call_output", callId: "ap", status: "failed", output: "no such file" },
  { type: "function_call_result", callId: "fn", name: "lookup", status: "completed", output: "found" },
];

/** A stub for every message of the view from `from` on, as a prune writes them: same tool call id, no items of their own. */
async function stubResults(ours: PalimpsestAgentsSession, from: number): Promise<void> {
  const results = ours.session.view().messages.slice(from);
  await ours.session.rewrite({
    mode: "retract",
    targets: results.map((m) => m.id),
    replacements: results.map((m) => ({
      role: "tool" as const,
      toolCallId: m.toolCallId as string,
      content: `[output pruned] ${m.toolCallId}`,
      ...(m.isError === undefined ? {} : { isError: m.isError }),
    })),
  });
}

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`items rendered from the projection (${engine.name})`, () => {
    const fresh = databases(engine);

    it("stubs take their call's result kind; other writers' messages become plain items; reasoning is dropped", async () => {
      const ours = await (await fresh()).open();
      await ours.addItems([...calls, ...results]);
      const view = ours.session.view().messages;
      expect(view.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "tool"]);
      expect(view[3]?.isError).toBe(true);
      await stubResults(ours, 2);
      await ours.session.append([
        {
          role: "user",
          content: [
            { type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" },
            { type: "text", text: "look" },
          ],
        },
        { role: "assistant", content: "Seen.", reasoning: [{ type: "thinking", thinking: "hm", signature: "sig" }] },
        { role: "assistant", content: "", toolCalls: [{ id: "x1", name: "grep", arguments: "{}" }] },
        { role: "tool", toolCallId: "x1", content: "3 matches" },
      ]);
      const items = await ours.getItems();
      expect(shapes(items)).toEqual([
        "message/user",
        "shell_call:sh",
        "apply_patch_call:ap",
        "function_call:fn",
        "shell_call_output:sh",
        "apply_patch_call_output:ap",
        "function_call_result:fn",
        "message/user",
        "message/assistant",
        "function_call:x1",
        "function_call_result:x1",
      ]);
      for (const item of items) expect(protocol.ModelItem.safeParse(item).success, JSON.stringify(item)).toBe(true);
      expect(items[5]).toMatchObject({ status: "failed", output: "[output pruned] ap" });
      expect(items[6]).toMatchObject({ name: "lookup", output: { type: "text", text: "[output pruned] fn" } });
      expect(items[7]).toEqual({
        type: "message",
        role: "user",
        content: [
          { type: "input_image", image: "data:image/png;base64,iVBORw0KGgo=" },
          { type: "input_text", text: "look" },
        ],
      });
      expect(JSON.stringify(items)).not.toContain("signature");
      expect(items[10]).toMatchObject({ name: "grep", output: { type: "text", text: "3 matches" } });
    });

    it("a pruned computer or tool search result is rendered as the result kind its call expects", async () => {
      const ours = await (await fresh()).open();
      await ours.addItems([
        { type: "message", role: "user", content: "look and search" },
        { type: "computer_call", callId: "cc", status: "completed", action: { type: "screenshot" } },
        { type: "tool_search_call", call_id: "ts", execution: "client", arguments: { q: "x" } } as AgentInputItem,
        {
          type: "computer_call_result",
          callId: "cc",
          output: { type: "computer_screenshot", data: "data:image/png;base64,iVBORw0KGgo=" },
        },
        { type: "tool_search_output", call_id: "ts", execution: "client", tools: [{ name: "g" }] } as AgentInputItem,
      ]);
      await stubResults(ours, 2);
      const items = await ours.getItems();
      expect(shapes(items)).toEqual([
        "message/user",
        "computer_call:cc",
        "tool_search_call",
        "computer_call_result:cc",
        "tool_search_output",
      ]);
      for (const item of items) expect(protocol.ModelItem.safeParse(item).success, JSON.stringify(item)).toBe(true);
      expect(items[3]).toMatchObject({ output: { type: "computer_screenshot" } });
      expect(items[4]).toMatchObject({ call_id: "ts", execution: "client", tools: [] });
    });
  });
}
