/**
 * A run interrupted for approval kept with the session (saveInterruptedRun / interruptedRun) in one
 * process: resumed, abandoned by a newer run, and the states it refuses, writing nothing then. Across
 * processes: processes.test.ts.
 */
import { tool } from "@openai/agents-core";
import { assistantMessage, ScriptedModel } from "@openai/agents-core/testing";
import type { PalimpsestAgentsSession } from "@palimpsest/openai-agents";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { rejection } from "../support/rejection.ts";
import { approvalModel, deleteFile, scripted, weather } from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";
import { expectRejection } from "./expect-error.ts";

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`interrupted runs kept with the session (${engine.name})`, () => {
    const fresh = databases(engine);

    it("is kept until the run resumes (with a rejection here), and is not kept again after", async () => {
      const ours = await (await fresh()).open();
      const first = scripted(approvalModel(), [deleteFile, weather]);
      expect(await ours.interruptedRun(first.agent)).toBeUndefined();
      await expectRejection(ours.interruptedRun(undefined as never), { code: "VALIDATION", path: "agent" });
      const interrupted = await first.runner.run(first.agent, "clean up", { session: ours });
      await ours.saveInterruptedRun(interrupted.state);
      const kept = ours.session.state.lastSeq;
      await ours.saveInterruptedRun(interrupted.state); // saved again: nothing to write
      expect(ours.session.state.lastSeq).toBe(kept);
      const items = await ours.getItems(); // the rewrite that keeps the run leaves the items as they were
      expect(items.map((i) => (i as { callId?: string }).callId ?? i.type)).toEqual([
        "message",
        "call_w",
        "call_d",
        "call_w",
      ]);

      const model = new ScriptedModel([[assistantMessage("Deleted it.")]]);
      const second = scripted(model, [deleteFile, weather]);
      const state = await ours.interruptedRun(second.agent);
      if (state === undefined) throw new Error("the interrupted run was not kept");
      expect(state.getInterruptions().map((i) => i.name)).toEqual(["delete_file"]);
      for (const interruption of state.getInterruptions()) state.reject(interruption);
      const resumed = await second.runner.run(second.agent, state, { session: ours });
      expect(resumed.finalOutput).toBe("Deleted it.");
      expect(await ours.interruptedRun(second.agent)).toBeUndefined();
      expect(ours.session.state.pendingCalls.size).toBe(0);
      // A state that was resumed is not kept again.
      await expectRejection(ours.saveInterruptedRun(interrupted.state), { code: "VALIDATION", path: "state" });
    });

    it("keeps the run context with the state unless { context: false }; interruptedRun(agent, { context }) resumes with the one given", async () => {
      const ours = await (await fresh()).open();
      const seen: unknown[] = [];
      const guarded = tool({
        name: "delete_file",
        description: "Deletes a file",
        parameters: z.object({ path: z.string() }),
        needsApproval: true,
        execute: async ({ path }, runContext) => {
          seen.push(runContext?.context);
          return `Deleted ${path}.`;
        },
      });
      const first = scripted(approvalModel(), [guarded, weather]);
      const context: Record<string, unknown> = { userId: "u-1", token: "secret-token" };
      const interrupted = await first.runner.run(first.agent, "clean up", { session: ours, context });
      await ours.saveInterruptedRun(interrupted.state);
      expect(keptState(ours)).toContain("secret-token"); // RunState.toString() holds the context verbatim
      await ours.saveInterruptedRun(interrupted.state, { context: false });
      expect(keptState(ours)).not.toContain("secret-token");
      expect(JSON.parse(keptState(ours)).context.context).toEqual({});
      const withoutContext = await ours.interruptedRun(first.agent);
      expect(withoutContext?.toJSON().context.context).toEqual({});

      // Values JSON would silently turn into something else (a Map into {}, a class instance into its fields)
      // are refused at their path, as addItems refuses them: the resumed run would get the changed value.
      class Client {
        host = "db";
        query() {}
      }
      for (const [key, value] of [
        ["settings", new Map([["region", "eu"]])],
        ["client", new Client()],
      ] as const) {
        context[key] = value;
        const error = await rejection(ours.saveInterruptedRun(interrupted.state));
        expect(error).toMatchObject({ code: "VALIDATION", details: { path: `state.context.${key}` } });
        expect(error.message).toContain("{ context: false }");
        delete context[key];
      }
      // A context JSON cannot hold (a live connection) is refused unless left out, and given again on resume.
      const connection: { self?: unknown } = {};
      connection.self = connection;
      context.connection = connection;
      const seq = ours.session.state.lastSeq;
      const circular = await rejection(ours.saveInterruptedRun(interrupted.state));
      expect(circular.code).toBe("VALIDATION");
      expect((circular.details as { path: string }).path).toMatch(/^state\.context\.connection\.self/);
      await ours.saveInterruptedRun(interrupted.state, { context: false }); // kept already: nothing to write
      expect(ours.session.state.lastSeq).toBe(seq);
      const live = { userId: "u-1", connection };
      const model = new ScriptedModel([[assistantMessage("Deleted it.")]]);
      const second = scripted(model, [guarded, weather]);
      const state = await ours.interruptedRun(second.agent, { context: live });
      if (state === undefined) throw new Error("the interrupted run was not kept");
      for (const interruption of state.getInterruptions()) state.approve(interruption);
      const resumed = await second.runner.run(second.agent, state, { session: ours });
      expect(resumed.finalOutput).toBe("Deleted it.");
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBe(live);
    });

    it("is gone once a newer run abandons its calls", async () => {
      const ours = await (await fresh()).open();
      const first = scripted(approvalModel(), [deleteFile, weather]);
      const interrupted = await first.runner.run(first.agent, "clean up", { session: ours });
      await ours.saveInterruptedRun(interrupted.state);
      const next = scripted(new ScriptedModel([[assistantMessage("Never mind.")]]));
      await next.runner.run(next.agent, "forget it", { session: ours });
      expect(await ours.interruptedRun(first.agent)).toBeUndefined();
      await expectRejection(ours.saveInterruptedRun(interrupted.state), { code: "VALIDATION", path: "state" });
    });

    it("refuses a state that is not an interruption of this session, and writes nothing", async () => {
      const db = await fresh();
      const ours = await db.open();
      const other = await db.open();
      const first = scripted(approvalModel(), [deleteFile, weather]);
      const interrupted = await first.runner.run(first.agent, "clean up", { session: other });
      const done = scripted(new ScriptedModel([[assistantMessage("Hi.")]]));
      const completed = await done.runner.run(done.agent, "hello", { session: ours });
      const seq = ours.session.state.lastSeq;

      await expectRejection(ours.saveInterruptedRun(completed.state), { code: "VALIDATION", path: "state" });
      await expectRejection(ours.saveInterruptedRun(interrupted.state), { code: "VALIDATION", path: "state" });
      await expectRejection(ours.saveInterruptedRun({} as never), { code: "VALIDATION", path: "state" });
      await ours.session.refresh();
      expect(ours.session.state.lastSeq).toBe(seq);
      expect(await ours.interruptedRun(first.agent)).toBeUndefined();
    });
  });
}

/** The serialized RunState the session keeps for its waiting calls (as its handle last read the log). */
function keptState(session: PalimpsestAgentsSession): string {
  const kept = session.session.state.live.flatMap((e) => {
    const stored = e.message.metadata?.openaiAgents as { interruptedRun?: { state: string } } | undefined;
    return stored?.interruptedRun === undefined ? [] : [stored.interruptedRun.state];
  });
  if (kept.length !== 1) throw new Error(`expected one kept run, found ${kept.length}`);
  return kept[0] as string;
}
