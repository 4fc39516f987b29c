/**
 * Items of every kind the SDK's schema has, read back in a new process deep-equal (all in one batch and
 * one per call), and `getItems(limit)` counted as MemorySession counts it.
 */
import { type AgentInputItem, MemorySession, protocol } from "@openai/agents-core";
import { describe, expect, it } from "vitest";
import { inputProblems } from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";

const PNG = "data:image/png;base64,iVBORw0KGgo=";

/** One item of every kind, with the optional fields that must survive (ids, providerData, status, ...). */
const everyKind = [
  { role: "user", content: "no type, string content" },
  { type: "message", role: "system", content: "be brief", id: "sys_1", providerData: { x: 1 } },
  {
    type: "message",
    role: "user",
    id: "u_1",
    content: [
      { type: "input_text", text: "hi", promptCacheBreakpoint: { mode: "explicit" } },
      { type: "input_image", image: PNG, detail: "high" },
      { type: "input_image", image: { id: "file-1" } },
      { type: "input_image", image: "https://example.com/a.png" },
      { type: "input_file", file: "data:application/pdf;base64,AAAA", filename: "a.pdf" },
      { type: "input_file", file: { id: "file-2" } },
      { type: "input_file", file: { url: "https://example.com/b.pdf" } },
      { type: "audio", audio: "AAAA", format: "wav", transcript: "hello" },
      { type: "audio", audio: { id: "aud-1" }, format: null, transcript: null },
    ],
  },
  {
    type: "reasoning",
    id: "rs_1",
    content: [],
    rawContent: [{ type: "reasoning_text", text: "hm" }],
    providerData: { encryptedContent: "ENC" },
  },
  {
    type: "message",
    role: "assistant",
    status: "completed",
    phase: "commentary",
    id: "m_1",
    providerData: { annotations: [] },
    content: [
      { type: "output_text", text: "a" },
      { type: "refusal", refusal: "no" },
      { type: "audio", audio: "AAAA" },
      { type: "image", image: "iVBORw0KGgo=" },
    ],
  },
  {
    type: "hosted_tool_call",
    id: "ws_1",
    name: "web_search_call",
    status: "completed",
    arguments: "{}",
    output: "x",
    providerData: { type: "web_search_call" },
  },
  {
    type: "function_call",
    callId: "c1",
    name: "f",
    namespace: "ns",
    status: "completed",
    arguments: '{ "a": 1 }',
    caller: { type: "direct" },
    providerData: { p: 1 },
  },
  { type: "computer_call", callId: "cc1", status: "completed", action: { type: "click", x: 1, y: 2, button: "left" } },
  { type: "shell_call", callId: "sh1", status: "completed", action: { commands: ["ls"], timeoutMs: 10 } },
  {
    type: "apply_patch_call",
    callId: "ap1",
    status: "completed",
    operation: { type: "create_file", path: "a", diff: "+x" },
  },
  {
    type: "function_call_result",
    callId: "c1",
    name: "f",
    namespace: "ns",
    status: "completed",
    output: [
      { type: "input_text", text: "r" },
      { type: "input_image", image: PNG },
    ],
  },
  { type: "computer_call_result", callId: "cc1", output: { type: "computer_screenshot", data: PNG } },
  {
    type: "shell_call_output",
    callId: "sh1",
    maxOutputLength: 10,
    output: [{ stdout: "a", stderr: "", outcome: { type: "timeout" }, extra: 1 }],
  },
  { type: "apply_patch_call_output", callId: "ap1", status: "completed" },
  { type: "tool_search_call", call_id: "ts1", execution: "client", arguments: { q: "x" }, status: "completed" },
  {
    type: "tool_search_output",
    call_id: "ts1",
    execution: "client",
    status: "completed",
    tools: [{ type: "function", name: "g" }],
  },
  { type: "tool_search_call", call_id: null, execution: "server", arguments: { q: "y" } },
  { type: "tool_search_output", call_id: null, execution: "server", tools: [] },
  { type: "compaction", id: "cmp_1", encrypted_content: "E", created_by: "server" },
  { type: "unknown", id: "x_1", providerData: { what: 1 } },
  { type: "message", role: "assistant", status: "incomplete", content: [] },
] as unknown as AgentInputItem[];

const program = (callId: string, caller: string, output: string): AgentInputItem[] => [
  { type: "function_call", callId, name: "g", arguments: "{}", caller: { type: "program", callerId: caller } },
  {
    type: "function_call_result",
    callId,
    name: "g",
    status: "completed",
    output,
    caller: { type: "program", callerId: caller },
  },
];

/** Programmatic tool calling: the program's own calls over two model responses, then its output. */
const programRun = [
  { type: "message", role: "user", content: "compute" },
  { type: "program", callId: "p1", code: "g(); g()", fingerprint: "fp" },
  ...program("pc1", "p1", "1"),
  ...program("pc2", "p1", "2"),
  { type: "program_output", callId: "p1", output: "done", status: "completed" },
  { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "3" }] },
] as AgentInputItem[];

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`items round-trip (${engine.name})`, () => {
    const fresh = databases(engine);

    it("every kind of item, in one batch and one per call, reads back deep-equal in a new process", async () => {
      for (const item of everyKind) expect(protocol.ModelItem.safeParse(item).success, JSON.stringify(item)).toBe(true);
      const db = await fresh();
      const batch = await db.open();
      await batch.addItems(everyKind);
      const single = await db.open();
      for (const item of everyKind) await single.addItems([item]);
      for (const id of [batch.session.id, single.session.id]) {
        expect(await (await db.open({ sessionId: id })).getItems()).toEqual(everyKind);
      }
    });

    it("a program whose calls span two model responses is stored, and read back, as the SDK wrote it", async () => {
      const db = await fresh();
      const ours = await db.open();
      await ours.addItems(programRun);
      expect(await (await db.open({ sessionId: ours.session.id })).getItems()).toEqual(programRun);
      expect(inputProblems(await ours.getItems())).toEqual([]);
      expect(ours.session.state.pendingCalls.size).toBe(0);
    });

    it("getItems(limit) counts as MemorySession does: 0, negative, fractional, NaN, past the end", async () => {
      const ours = await (await fresh()).open();
      const memory = new MemorySession();
      const items = everyKind.slice(0, 5);
      await ours.addItems(items);
      await memory.addItems(items);
      for (const limit of [0, -1, 1, 2, 5, 6, 100, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(await ours.getItems(limit), `limit ${limit}`).toEqual(await memory.getItems(limit));
      }
    });
  });
}
