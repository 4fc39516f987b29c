import { foldEvents, initialState } from "@palimpsest/core";
import { activeView } from "@palimpsest/projections";
import { compactRange, type Palimpsest, type Session } from "@palimpsest/runtime";
import { AuditReadModels } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`fork (${backend.name})`, () => {
    let runtime: Palimpsest;
    let other: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
      other = await backend.open(); // another "process"
    });
    afterAll(() => backend.dispose());

    /** Three exchanges, the first two compacted into a summary. */
    async function compactedParent(): Promise<Session> {
      const parent = await runtime.startSession({
        model: "gpt-4o",
        source: { format: "test", externalId: `p-${Math.random()}` },
      });
      await parent.append([...exchange(1), ...exchange(2)]);
      await compactRange(parent, { fromId: "u1", toId: "r1", summary: "they asked 1; answered 1" });
      await parent.append(exchange(3));
      return parent;
    }
    /** The parent's view as it stood at `seq`, read from its log in another process. */
    async function viewAt(sessionId: string, seq: number) {
      const log = await other.store.readStream(sessionId, { toSeq: seq });
      return activeView(foldEvents(initialState(sessionId), log)).messages;
    }

    it("starts with the parent's view at a seq, summaries included, and the two never see each other's writes", async () => {
      const parent = await compactedParent();
      const atSeq = parent.state.lastSeq - 4; // after the compaction, before exchange 3
      const fork = await runtime.fork(parent.id, { atSeq });
      expect(fork.view().messages).toEqual(await viewAt(parent.id, atSeq));
      expect(fork.view().messages.map((m) => m.id)).toEqual([expect.any(String), "u2", "a2", "t2", "r2"]);
      expect(fork.resumeState().lineage).toEqual({
        parent: { sessionId: parent.id, relation: "fork", atSeq },
        handedOffTo: undefined,
      });

      await fork.append({ id: "f-u", role: "user", content: "another way" });
      await parent.append({ id: "p-u", role: "user", content: "go on" });
      const [forkNow, parentNow] = await Promise.all([other.resume(fork.id), other.resume(parent.id)]);
      expect(forkNow.view().messages.map((m) => m.id)).not.toContain("p-u");
      expect(parentNow.view().messages.map((m) => m.id)).not.toContain("f-u");
      expect(parentNow.view().messages.map((m) => m.id)).toContain("r3");
      expect(viewProblems(forkNow, await other.store.readStream(fork.id))).toEqual([]);
      // A fork takes no name: the parent's name keeps naming the parent alone.
      expect(await other.resolveSession(parent.state.started?.source?.externalId ?? "")).toBe(parent.id);
    });

    it("forks by turn: before the (N+1)-th user message, so an earlier message can be edited", async () => {
      const parent = await runtime.startSession({ model: "gpt-4o" });
      await parent.append([...exchange(1), ...exchange(2), ...exchange(3)]);
      const atTurn1 = await runtime.fork(parent.id, { atTurn: 1 });
      expect(atTurn1.view().messages.map((m) => m.id)).toEqual(["u1", "a1", "t1", "r1"]);
      await atTurn1.append({ id: "u2-edited", role: "user", content: "question 2, asked differently" });
      expect((await runtime.fork(parent.id, { atTurn: 0 })).view().messages).toEqual([]);
      expect((await runtime.fork(parent.id, { atTurn: 3 })).view().messages).toHaveLength(12);
      expect((await runtime.fork(parent.id)).view().messages).toEqual(parent.view().messages);
      const audit = new AuditReadModels(runtime.store); // the backends open the real store
      const lineage = await audit.lineage(atTurn1.id);
      expect(lineage.ancestors.map((n) => [n.sessionId, n.relation])).toEqual([[parent.id, null]]);
      expect(lineage.session).toMatchObject({ sessionId: atTurn1.id, relation: "fork", parentAtSeq: 5 });
      expect(lineage.ancestors[0]?.parentAtSeq).toBeNull();
    });

    it("is idempotent by toSessionId, also from another process; refuses that id for anything else", async () => {
      const parent = await runtime.startSession({ model: "gpt-4o" });
      await parent.append(exchange(1));
      const toSessionId = `fork-${parent.id}`;
      const first = await runtime.fork(parent.id, { atSeq: 3, toSessionId });
      const again = await other.fork(parent.id, { atSeq: 3, toSessionId });
      expect(again.id).toBe(first.id);
      expect(again.state.lastSeq).toBe(first.state.lastSeq);
      const elsewhere = await rejection(runtime.fork(parent.id, { atSeq: 2, toSessionId }));
      expect(elsewhere).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "session-already-started" } });
    });

    it("refuses a fork point outside the log, both points at once, an unknown or erased parent", async () => {
      const parent = await runtime.startSession({ model: "gpt-4o" });
      await parent.append(exchange(1));
      for (const [options, path] of [
        [{ atSeq: 0 }, "atSeq"],
        [{ atSeq: 99 }, "atSeq"],
        [{ atTurn: 2 }, "atTurn"],
        [{ atTurn: -1 }, "atTurn"],
        [{ atSeq: 1, atTurn: 0 }, "atSeq"],
        [{ at: 1 }, "at"],
      ] as const) {
        expect(await rejection(runtime.fork(parent.id, options as never))).toMatchObject({
          code: "VALIDATION",
          details: { path },
        });
      }
      expect((await rejection(runtime.fork("no-such-session"))).code).toBe("NOT_FOUND");
      await runtime.erase(parent.id);
      expect(await rejection(runtime.fork(parent.id))).toMatchObject({ details: { rule: "session-erased" } });
    });
  });
}
