import { type DomainEvent, messageKey, resultKey } from "@palimpsest/core";
import { compactionKey, turnDoneKey, turnKey } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";
import type { ContractContext } from "./contract-backend.ts";
import { newSessionId, started, summaryEvent, userMessage } from "./fixtures.ts";

/** An assistant message calling `callId`, and its result, in turn `turnId`. */
function exchange(id: string, callId: string, turnId: string): DomainEvent[] {
  return [
    {
      type: "message.appended",
      data: {
        message: { id, role: "assistant", content: [], toolCalls: [{ id: callId, name: "ls", arguments: "{}" }] },
        tokens: 5,
        turnId,
      },
    },
    {
      type: "message.appended",
      data: {
        message: { id: `${id}-result`, role: "tool", toolCallId: callId, content: [{ type: "text", text: "a" }] },
        tokens: 1,
        turnId,
      },
    },
  ];
}

/** The log keys every append writes beside its events: what `knownKeys` answers, on every backend. */
export function logKeysContract(ctx: ContractContext): void {
  describe("log keys", () => {
    it("knows every id the log ever held, superseded or not, and nothing else", async () => {
      const sid = newSessionId("keys");
      const store = ctx.store();
      await store.append(sid, [started(), userMessage("u1", "hi"), ...exchange("a1", "c1", "t1")], {
        expectedVersion: "no-stream",
      });
      await store.append(sid, [summaryEvent("k1", ["u1", "a1", "a1-result"], "s1", 0)], {
        expectedVersion: 4,
        viewVersion: { expected: 0 },
      });
      await store.append(sid, [{ type: "turn.completed", data: { turnId: "t1" } }], { expectedVersion: 5 });
      const asked = [
        messageKey("u1"),
        messageKey("a1"),
        messageKey("a1-result"),
        messageKey("s1"),
        resultKey("c1"),
        compactionKey("k1"),
        turnKey("t1"),
        turnDoneKey("t1"),
      ];
      const unknown = [messageKey("u2"), resultKey("a1"), compactionKey("s1"), turnKey("t2"), turnDoneKey("t2")];
      expect(await store.knownKeys(sid, [...asked, ...unknown])).toEqual(new Set(asked));
      expect(await store.knownKeys(newSessionId("other"), asked)).toEqual(new Set());
      expect(await store.knownKeys(sid, [])).toEqual(new Set());
    });

    it("a refused append writes no key; a batch of more keys than one lookup takes is answered whole", async () => {
      const sid = newSessionId("keys-many");
      const store = ctx.store();
      await store.append(sid, [started()], { expectedVersion: "no-stream" });
      await expect(store.append(sid, [userMessage("late", "x")], { expectedVersion: 7 })).rejects.toMatchObject({
        code: "CONCURRENCY_CONFLICT",
      });
      expect(await store.knownKeys(sid, [messageKey("late")])).toEqual(new Set());
      const ids = Array.from({ length: 1_200 }, (_, i) => `m${i}`);
      await store.append(
        sid,
        ids.map((id) => userMessage(id, id)),
        { expectedVersion: 1 },
      );
      const asked = [...ids, "m-none", "m1200"].map(messageKey);
      const known = await store.knownKeys(sid, asked);
      expect(known.size).toBe(1_200);
      expect(known.has(messageKey("m1199"))).toBe(true);
      expect(known.has(messageKey("m1200"))).toBe(false);
    });

    it("an append whose fresh keys the log holds writes nothing and names them; one whose keys are new commits", async () => {
      const sid = newSessionId("keys-fresh");
      const store = ctx.store();
      await store.append(sid, [started(), userMessage("u1", "hi")], {
        expectedVersion: "no-stream",
        freshKeys: [messageKey("u1")], // a new session holds no keys
      });
      for (const expectedVersion of [2, "any"] as const) {
        const taken = store.append(sid, [userMessage("u1", "again")], {
          expectedVersion,
          freshKeys: [messageKey("u1"), messageKey("u9")],
        });
        await expect(taken).rejects.toMatchObject({
          code: "INVARIANT_VIOLATED",
          details: { rule: "log-key-taken", sessionId: sid, ids: [messageKey("u1")] },
        });
      }
      expect(await store.readStream(sid)).toHaveLength(2);
      // A stream that moved is reported first: the caller must read again before anything else.
      await expect(
        store.append(sid, [userMessage("u1", "x")], { expectedVersion: 1, freshKeys: [messageKey("u1")] }),
      ).rejects.toMatchObject({ code: "CONCURRENCY_CONFLICT" });
      await store.append(sid, [userMessage("u2", "new")], { expectedVersion: 2, freshKeys: [messageKey("u2")] });
      await expect(
        store.append(sid, [userMessage("u3", "x")], { expectedVersion: 3, freshKeys: ["message:\u0000"] }),
      ).rejects.toMatchObject({ code: "VALIDATION", details: { path: "freshKeys[0]" } });
      expect(await store.readStream(sid)).toHaveLength(3);
    });

    it("an erasure drops the session's keys with its content", async () => {
      const sid = newSessionId("keys-erased");
      const store = ctx.store();
      await store.append(sid, [started(), userMessage("gone", "secret")], { expectedVersion: "no-stream" });
      expect((await store.knownKeys(sid, [messageKey("gone")])).size).toBe(1);
      await store.erase(sid);
      expect(await store.knownKeys(sid, [messageKey("gone")])).toEqual(new Set());
    });
  });
}
