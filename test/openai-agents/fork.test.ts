/**
 * Forks under the Runner: the fork's history is the parent's as it stood at the fork point (a turn or a
 * seq), and writes to either never show in the other; a new process opens the fork by its id.
 */
import type { AgentInputItem } from "@openai/agents-core";
import { ScriptedModel } from "@openai/agents-core/testing";
import type { PalimpsestAgentsSession } from "@palimpsest/openai-agents";
import { describe, expect, it } from "vitest";
import { inputItems, inputProblems, scripted, turnSteps } from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";
import { expectRejection } from "./expect-error.ts";

/** Runs turn `turn` (two calls) on `session`; the model's inputs. */
async function turn(session: PalimpsestAgentsSession, t: number, tag = ""): Promise<AgentInputItem[][]> {
  const model = new ScriptedModel(turnSteps(t, 2));
  const { agent, runner } = scripted(model);
  await runner.run(agent, `question ${t}${tag}`, { session });
  return model.calls.map((c) => inputItems(c.request.input));
}

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`fork (${engine.name})`, () => {
    const fresh = databases(engine);

    it("at a turn and at a seq: the parent's history then; writes to either never show in the other", async () => {
      const db = await fresh();
      const parent = await db.open();
      const after: { items: AgentInputItem[]; seq: number }[] = [];
      for (const t of [1, 2, 3]) {
        await turn(parent, t);
        after.push({ items: await parent.getItems(), seq: parent.session.state.lastSeq });
      }
      const byTurn = await parent.fork({ atTurn: 2 });
      const bySeq = await parent.fork({ atSeq: after[0]?.seq as number });
      expect(await byTurn.getItems()).toEqual(after[1]?.items);
      expect(await bySeq.getItems()).toEqual(after[0]?.items);
      expect(byTurn.session.state.started?.parent).toMatchObject({ sessionId: parent.session.id, relation: "fork" });
      expect(byTurn.runtime).toBe(parent.runtime);

      const forkInputs = await turn(byTurn, 3, " (edited)");
      for (const input of forkInputs) expect(inputProblems(input)).toEqual([]);
      expect(forkInputs[0]?.slice(0, -1)).toEqual(after[1]?.items);
      await turn(parent, 4);
      const parentItems = await parent.getItems();
      const forkItems = await byTurn.getItems();
      expect(JSON.stringify(parentItems)).not.toContain("(edited)");
      expect(JSON.stringify(forkItems)).toContain("(edited)");
      expect(JSON.stringify(forkItems)).not.toContain("question 4");
      expect(parentItems.slice(0, after[2]?.items.length)).toEqual(after[2]?.items);
      expect(await bySeq.getItems()).toEqual(after[0]?.items);

      const reopened = await db.open({ sessionId: byTurn.session.id });
      expect(await reopened.getItems()).toEqual(forkItems);
      await byTurn.close();
      expect(await parent.getItems()).toEqual(parentItems);
    });

    it("the runtime a parent opened stays open for its forks until the last of them closes", async () => {
      const db = await fresh();
      const parent = await db.open();
      await turn(parent, 1);
      const fork = await parent.fork({ atTurn: 1 });
      const again = await fork.fork({ atTurn: 0 });
      await parent.close();
      await parent.close();
      await turn(fork, 2, " (fork)");
      expect(JSON.stringify(await fork.getItems())).toContain("(fork)");
      await fork.close();
      expect(await again.getItems()).toEqual([]);
      await again.close();
      await expectRejection(again.getItems(), { code: "STORAGE" });
      await expectRejection(parent.runtime.resolveSession(parent.session.id), { code: "STORAGE" });
    });
  });
}
