/**
 * The adapter across processes (children bundled once, test/support/child-script.ts): a run resumed and continued in a new process, an
 * approval interruption whose serialized RunState is approved and resumed in a new process (kept by the
 * caller, or with the session), and two processes writing one session at once.
 */
import { randomUUID } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentInputItem, MemorySession, RunState, type Session } from "@openai/agents-core";
import { assistantMessage, ScriptedModel } from "@openai/agents-core/testing";
import type { PalimpsestAgentsSession } from "@palimpsest/openai-agents";
import { describe, expect, it } from "vitest";
import { startScript } from "../support/child-script.ts";
import {
  approvalModel,
  deleteFile,
  inputItems,
  inputProblems,
  scripted,
  shapes,
  turnSteps,
  weather,
} from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";

const CHILD = "test/openai-agents/agent-child.ts";

/** Runs the child to its end; its JSON lines, or a failure with its stderr. */
async function child(args: string[]): Promise<Record<string, unknown>[]> {
  const script = startScript(CHILD, args);
  script.endInput();
  const exit = await script.exited;
  expect(exit.code, script.stderr()).toBe(0);
  return script.messages as Record<string, unknown>[];
}

/** The approval flow in one process on MemorySession: what the history should hold in the end. */
async function approvalOnMemory(): Promise<AgentInputItem[]> {
  const session = new MemorySession();
  const first = scripted(approvalModel(), [deleteFile, weather]);
  const interrupted = await first.runner.run(first.agent, "clean up", { session });
  const resumedModel = new ScriptedModel([[assistantMessage("Deleted it.", { id: "m_done" })]]);
  const second = scripted(resumedModel, [deleteFile, weather]);
  const state = await RunState.fromString(second.agent, interrupted.state.toString());
  for (const interruption of state.getInterruptions()) state.approve(interruption);
  await second.runner.run(second.agent, state, { session });
  return session.getItems();
}

/** Each call id's calls and results in `items`. */
function callCounts(items: readonly AgentInputItem[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const item of items) {
    const id = (item as { callId?: string }).callId;
    if (id === undefined) continue;
    out[id] = [...(out[id] ?? []), String(item.type)];
  }
  return out;
}

/**
 * The approval flow's end, resumed in a child: every model input it printed is valid, and the session
 * holds `expected` (MemorySession's items), each call and result once, nothing waiting.
 */
async function expectResumed(
  lines: Record<string, unknown>[],
  session: PalimpsestAgentsSession,
  expected: AgentInputItem[],
): Promise<void> {
  for (const line of lines.slice(0, -1)) expect(inputProblems(line.input as AgentInputItem[])).toEqual([]);
  const items = await session.getItems();
  expect(items).toEqual(expected);
  expect(callCounts(items)).toEqual({
    call_w: ["function_call", "function_call_result"],
    call_d: ["function_call", "function_call_result"],
  });
  expect(session.session.state.pendingCalls.size).toBe(0);
}

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`across processes (${engine.name})`, () => {
    const fresh = databases(engine);

    it("a new process resumes the session and continues the run with the same input MemorySession gives", async () => {
      const memory = new MemorySession();
      const db = await fresh();
      const ours = await db.open();
      for (const session of [memory, ours] as Session[]) {
        const model = new ScriptedModel([...turnSteps(1, 2), ...turnSteps(2, 3)]);
        const { agent, runner } = scripted(model);
        for (const t of [1, 2]) await runner.run(agent, `question ${t}`, { session });
      }
      await ours.close();
      const lines = await child(["continue", db.url, ours.session.id, "3", "2"]);
      const expectedModel = new ScriptedModel(turnSteps(3, 2));
      const expected = scripted(expectedModel);
      await expected.runner.run(expected.agent, "question 3", { session: memory });
      expect(lines.at(-1)).toEqual({ done: "answer 3" });
      expect(lines.slice(0, -1).map((l) => l.input)).toEqual(
        expectedModel.calls.map((c) => inputItems(c.request.input)),
      );
      const reopened = await db.open({ sessionId: ours.session.id });
      expect(await reopened.getItems()).toEqual(await memory.getItems());
    });

    it("an approval interruption, serialized, approved and resumed in a new process: each call and result once", async () => {
      const expectedItems = await approvalOnMemory();
      const db = await fresh();
      const ours = await db.open();
      const { agent, runner } = scripted(approvalModel(), [deleteFile, weather]);
      const interrupted = await runner.run(agent, "clean up", { session: ours });
      expect(interrupted.interruptions.map((i) => i.name)).toEqual(["delete_file"]);
      expect(ours.session.state.pendingCalls.has("call_d")).toBe(true);
      const stateFile = join(tmpdir(), `palimpsest-oa-state-${ours.session.id}.json`);
      writeFileSync(stateFile, interrupted.state.toString());
      await ours.close();

      const lines = await child(["approve", db.url, ours.session.id, stateFile]).finally(() => rmSync(stateFile));
      expect(lines.at(-1)).toEqual({ done: "Deleted it." });
      await expectResumed(lines, await db.open({ sessionId: ours.session.id }), expectedItems);
    });

    it("a run interrupted for approval, kept with the session: one process stops there and exits, another resumes it by session id alone", async () => {
      const expectedItems = await approvalOnMemory();
      const db = await fresh();
      const sessionId = randomUUID(); // the only thing the second process is told
      expect(await child(["interrupt", db.url, sessionId])).toEqual([{ interrupted: ["delete_file"] }]);

      const lines = await child(["resume", db.url, sessionId]);
      expect(lines.at(-1)).toEqual({ done: "Deleted it.", keptAfter: false });
      const reopened = await db.open({ sessionId });
      await expectResumed(lines, reopened, expectedItems);
      expect(await reopened.interruptedRun(scripted(approvalModel()).agent)).toBeUndefined();
      expect((await reopened.session.history()).map((c) => c.producer.policy)).toEqual(["openai-agents-interruption"]);
    });

    it("two processes writing one session: every turn whole, each call with its result once", async () => {
      const db = await fresh();
      const ours = await db.open();
      await ours.addItems([{ type: "message", role: "user", content: "start" }]);
      const [left, right] = await Promise.all([
        child(["writer", db.url, ours.session.id, "left", "6"]),
        child(["writer", db.url, ours.session.id, "right", "6"]),
      ]);
      expect(left?.at(-1)).toEqual({ done: 6 });
      expect(right?.at(-1)).toEqual({ done: 6 });
      const items = await ours.getItems();
      expect(inputProblems(items)).toEqual([]);
      expect(shapes(items).filter((s) => s === "message/user")).toHaveLength(13);
      const counts = callCounts(items);
      expect(Object.keys(counts)).toHaveLength(24);
      for (const kinds of Object.values(counts)) expect(kinds).toEqual(["function_call", "function_call_result"]);
    });
  });
}
