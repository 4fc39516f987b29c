/**
 * The destructive and transactional calls of the Session protocol, against MemorySession where it has
 * them: popItem, clearSession, an abandoned approval, history transactions and mutations, a provider's
 * compaction item. Every one is a supersede: the originals stay one `expand` away.
 */
import { type AgentInputItem, MemorySession, type Session } from "@openai/agents-core";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { describe, expect, it } from "vitest";
import { deleteFile, inputItems, inputProblems, scripted, shapes, turnSteps } from "./agents-harness.ts";
import { databases, engines } from "./engines.ts";
import { expectRejection } from "./expect-error.ts";

/** One turn with two parallel calls, run through the Runner on `session`. */
async function oneTurn(session: Session): Promise<void> {
  const model = new ScriptedModel(turnSteps(1, 2));
  const { agent, runner } = scripted(model);
  await runner.run(agent, "question 1", { session });
}

const user = (text: string): AgentInputItem => ({ type: "message", role: "user", content: text });

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`history operations (${engine.name})`, () => {
    const fresh = databases(engine);

    it("popItem returns what MemorySession returns, item by item, and keeps every original in the log", async () => {
      const memory = new MemorySession();
      const ours = await (await fresh()).open();
      await oneTurn(memory);
      await oneTurn(ours);
      for (;;) {
        const expected = await memory.popItem();
        expect(await ours.popItem()).toEqual(expected);
        expect(await ours.getItems()).toEqual(await memory.getItems());
        expect(ours.session.state.pendingCalls.size).toBe(0);
        if (expected === undefined) break;
      }
      const history = await ours.session.history();
      expect(history.length).toBeGreaterThanOrEqual(6);
      expect(new Set(history.map((c) => c.mode))).toEqual(new Set(["retract"]));
      const originals = (await Promise.all(history.map((c) => ours.session.expand(c.compactionId, true)))).flat();
      const texts = originals.map((o) => JSON.stringify(o.message.metadata));
      for (const text of ["question 1", "call_1_0", "call_1_1", "sunny in city-1-1", "answer 1"]) {
        expect(texts.some((t) => t.includes(text))).toBe(true);
      }
    });

    it("a popped tool result given again (corrected) answers its call again, as MemorySession takes it", async () => {
      const call = (callId: string): AgentInputItem => ({ type: "function_call", callId, name: "f", arguments: "{}" });
      const result = (callId: string, output: string): AgentInputItem => ({
        type: "function_call_result",
        callId,
        name: "f",
        status: "completed",
        output,
      });
      const memory = new MemorySession();
      const ours = await (await fresh()).open();
      for (const session of [memory, ours] as Session[]) {
        await session.addItems([user("q"), call("a"), call("b"), result("a", "1"), result("b", "2")]);
        await session.popItem();
        await session.addItems([result("b", "corrected")]);
        await session.popItem();
        await session.popItem();
        await session.addItems([result("a", "1"), result("b", "corrected again")]);
      }
      expect(await ours.getItems()).toEqual(await memory.getItems());
      const view = ours.session.view().messages;
      expect(view.flatMap((m) => m.toolCalls ?? []).map((c) => c.id)).toEqual(["a", "b"]);
      expect(view.filter((m) => m.role === "tool").map((m) => m.toolCallId)).toEqual(["a", "b"]);
      expect(inputProblems(await ours.getItems())).toEqual([]);
    });

    it("clearSession empties the view by one retraction; expand returns the originals; the run goes on", async () => {
      const db = await fresh();
      const ours = await db.open();
      await oneTurn(ours);
      const before = await ours.getItems();
      await ours.clearSession();
      expect(await ours.getItems()).toEqual([]);
      const [cleared] = await ours.session.history();
      expect(cleared?.mode).toBe("retract");
      const expanded = await ours.session.expand(cleared?.compactionId as string);
      const stored = expanded.map((e) => e.message.metadata?.openaiAgents as { items: unknown[] } | undefined);
      expect(stored.flatMap((s) => s?.items ?? [])).toEqual(before);

      const model = new ScriptedModel([[assistantMessage("fresh start")]]);
      const { agent, runner } = scripted(model);
      await runner.run(agent, "again", { session: ours });
      expect(shapes(inputItems(model.lastCall?.request.input ?? []))).toEqual(["message/user"]);
      const reopened = await db.open({ sessionId: ours.session.id });
      expect(shapes(await reopened.getItems())).toEqual(["message/user", "message/assistant"]);
    });

    it("an abandoned approval: its call is withdrawn unanswered, kept, and pruned from the next input as MemorySession's is", async () => {
      const run = async (session: Session) => {
        const model = new ScriptedModel([
          [functionCall("delete_file", { path: "/x" }, { callId: "call_a" })],
          [assistantMessage("fine")],
        ]);
        const { agent, runner } = scripted(model, [deleteFile]);
        const interrupted = await runner.run(agent, "delete /x", { session });
        expect(interrupted.interruptions).toHaveLength(1);
        await runner.run(agent, "never mind", { session });
        return inputItems(model.lastCall?.request.input ?? []);
      };
      const memory = new MemorySession();
      const ours = await (await fresh()).open();
      const expectedInput = await run(memory);
      expect(await run(ours)).toEqual(expectedInput);
      expect(await ours.getItems()).toEqual(await memory.getItems());
      expect(shapes(await ours.getItems())).toEqual([
        "message/user",
        "function_call:call_a",
        "message/user",
        "message/assistant",
      ]);
      const view = ours.session.view().messages;
      expect(view.some((m) => (m.toolCalls?.length ?? 0) > 0)).toBe(false);
      expect(ours.session.state.pendingCalls.size).toBe(0);
    });

    it("items that answer some waiting calls and then move on: the rest withdrawn, every item kept", async () => {
      const items: AgentInputItem[] = [
        user("two things"),
        { type: "function_call", callId: "a", name: "get_weather", arguments: "{}" },
        { type: "function_call", callId: "b", name: "get_weather", arguments: "{}" },
      ];
      const later: AgentInputItem[] = [
        { type: "function_call_result", callId: "a", name: "get_weather", status: "completed", output: "sunny" },
        user("skip the second"),
        { type: "function_call", callId: "b2", name: "get_weather", arguments: "{}" },
      ];
      const memory = new MemorySession();
      const ours = await (await fresh()).open();
      for (const session of [memory, ours] as Session[]) {
        await session.addItems(items);
        await session.addItems(later);
      }
      expect(await ours.getItems()).toEqual(await memory.getItems());
      expect([...ours.session.state.pendingCalls.keys()]).toEqual(["b2"]);
      expect(
        ours.session
          .view()
          .messages.flatMap((m) => m.toolCalls ?? [])
          .map((c) => c.id),
      ).toEqual(["b2"]);
    });

    it("applyHistoryTransaction: atomic, a retry is a no-op in any process, another body under the id changes nothing", async () => {
      const db = await fresh();
      const ours = await db.open();
      await ours.addItems([user("hello")]);
      const append = {
        operationId: "op-1",
        transaction: { type: "append_items" as const, items: [user("one"), user("two")] },
      };
      await ours.applyHistoryTransaction(append);
      await ours.applyHistoryTransaction(append);
      const afterAppend = await ours.getItems();
      expect(afterAppend.map((i) => (i as { content: string }).content)).toEqual(["hello", "one", "two"]);

      const other = await db.open({ sessionId: ours.session.id });
      await other.applyHistoryTransaction(append);
      await expectRejection(
        other.applyHistoryTransaction({
          operationId: "op-1",
          transaction: { type: "append_items", items: [user("three")] },
        }),
        { code: "IDEMPOTENCY_MISMATCH" },
      );
      expect(await other.getItems()).toEqual(afterAppend);

      const replace = {
        operationId: "op-2",
        transaction: {
          type: "replace_suffix" as const,
          expectedSuffix: [user("two")],
          replacement: [user("2"), user("3")],
        },
      };
      await expectRejection(
        ours.applyHistoryTransaction({
          ...replace,
          transaction: { ...replace.transaction, expectedSuffix: [user("one")] },
        }),
        { code: "VALIDATION", path: "transaction.expectedSuffix" },
      );
      expect(await ours.getItems()).toEqual(afterAppend);
      await ours.applyHistoryTransaction(replace);
      const replaced = await ours.getItems();
      expect(replaced.map((i) => (i as { content: string }).content)).toEqual(["hello", "one", "2", "3"]);
      await ours.applyHistoryTransaction(replace);
      await other.applyHistoryTransaction(replace);
      expect(await other.getItems()).toEqual(replaced);
      await expectRejection(
        other.applyHistoryTransaction({
          ...replace,
          transaction: { ...replace.transaction, replacement: [user("x")] },
        }),
        { code: "IDEMPOTENCY_MISMATCH" },
      );
      expect(await other.getItems()).toEqual(replaced);
      expect((await ours.session.history()).map((c) => c.mode)).toEqual(["retract"]);
    });

    // The rewrite is based on the log's seq it was planned on (`expectedSeq`): the store refuses it once
    // another writer moved the log, and the adapter plans again, where the suffix no longer matches.
    it("replace_suffix whose suffix another process extends before the commit changes nothing", async () => {
      const db = await fresh();
      const ours = await db.open();
      const other = await db.open({ sessionId: ours.session.id });
      await ours.addItems([user("one"), user("two")]);
      // The other process appends just as this one plans the transaction (it asks whether its key was used).
      const store = ours.runtime.store;
      const keyedBatch = store.keyedBatch.bind(store);
      let raced = false;
      store.keyedBatch = async (...args) => {
        if (!raced) {
          raced = true;
          await other.addItems([user("three")]);
        }
        return keyedBatch(...args);
      };
      const outcome = await ours
        .applyHistoryTransaction({
          operationId: "op-race",
          transaction: { type: "replace_suffix", expectedSuffix: [user("two")], replacement: [user("2")] },
        })
        .then(
          () => "applied",
          (error: { code?: string }) => error.code,
        );
      expect(raced).toBe(true);
      expect(await other.getItems()).toEqual([user("one"), user("two"), user("three")]);
      expect(outcome).toBe("VALIDATION"); // planned again: the history no longer ends with the expected suffix
      expect(await ours.getItems()).toEqual([user("one"), user("two"), user("three")]);
    });

    it("replace_suffix inside a run of calls keeps each call with its result", async () => {
      const ours = await (await fresh()).open();
      await oneTurn(ours);
      const items = await ours.getItems();
      const [, , , , lastResult, answer] = items;
      const replacement = [
        { ...(lastResult as object), output: { type: "text", text: "redacted" } } as AgentInputItem,
        answer as AgentInputItem,
      ];
      await ours.applyHistoryTransaction({
        operationId: "op-r",
        transaction: { type: "replace_suffix", expectedSuffix: items.slice(-2), replacement },
      });
      const after = await ours.getItems();
      expect(after).toEqual([...items.slice(0, -2), ...replacement]);
      expect(inputProblems(after)).toEqual([]);
    });

    it("applyHistoryMutations replaces a function call's arguments (0.20 shape and `expected`)", async () => {
      const ours = await (await fresh()).open();
      await oneTurn(ours);
      const items = await ours.getItems();
      const call = items[1] as Extract<AgentInputItem, { type: "function_call" }>;
      const replacement = { ...call, arguments: '{"city":"Bergen"}' };
      await ours.applyHistoryMutations({
        mutations: [{ type: "replace_function_call", callId: call.callId, replacement }],
      });
      expect((await ours.getItems())[1]).toEqual(replacement);
      expect(ours.session.view().messages[1]?.toolCalls?.[0]?.arguments).toBe('{"city":"Bergen"}');
      const again = { ...replacement, arguments: '{"city":"Tromsø"}' };
      const expected = { type: "replace_function_call", callId: call.callId, replacement: again, expected: call };
      await expectRejection(ours.applyHistoryMutations({ mutations: [expected as never] }), {
        code: "VALIDATION",
        path: "mutations[0].expected",
      });
      await ours.applyHistoryMutations({ mutations: [{ ...expected, expected: replacement } as never] });
      const after = await ours.getItems();
      expect(after[1]).toEqual(again);
      expect(after).toHaveLength(items.length);
      expect(inputProblems(after)).toEqual([]);
    });

    it("a provider compaction item replaces the history as MemorySession's clear-and-add does, recorded as an import", async () => {
      const run = async (session: Session) => {
        const model = new ScriptedModel([
          [assistantMessage("first", { id: "m1" })],
          [
            { type: "compaction", id: "cmp_1", encrypted_content: "ENC", created_by: "server" },
            assistantMessage("second", { id: "m2" }),
          ],
          [assistantMessage("third", { id: "m3" })],
        ]);
        const { agent, runner } = scripted(model);
        for (const input of ["one", "two", "three"]) await runner.run(agent, input, { session });
        return inputItems(model.lastCall?.request.input ?? []);
      };
      const memory = new MemorySession();
      const ours = await (await fresh()).open();
      const expectedInput = await run(memory);
      expect(await run(ours)).toEqual(expectedInput);
      expect(await ours.getItems()).toEqual(await memory.getItems());
      const [imported] = await ours.session.history();
      expect(imported?.mode).toBe("import");
      expect((await ours.session.expand(imported?.compactionId as string)).length).toBeGreaterThan(0);
    });
  });
}
