import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { isPalimpsestError } from "@palimpsest/core";
import { mirrorSessionId } from "@palimpsest/runtime/testing";
import { describe, expect, it } from "vitest";
import { TranscriptWriter, text } from "./claude-code-lines.ts";
import { type ContractContext, newKey } from "./contract-context.ts";

/** A line of the subagent thread `agentId`, as Claude Code writes sidechain lines into the main transcript. */
function sidechain(line: SessionStoreEntry, agentId: string): SessionStoreEntry {
  return { ...line, isSidechain: true, agentId };
}

/** The error `promise` rejects with (the test fails when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail("resolved"),
    (error: unknown) => error,
  );
}

/** sessionIds: which Palimpsest sessions a key is folded into, in which order, and found by the SDK's id alone. */
export function sessionIdsContract({ fresh }: ContractContext): void {
  describe("sessionIds", () => {
    it("names the main thread first, then the subagent threads in the order the transcript starts them", async () => {
      const store = await (await fresh()).open();
      const agents = ["agent-c", "agent-a", "agent-d", "agent-b"];
      // Several keys: whatever order the database returns rows in unasked, one of them would differ.
      for (let round = 0; round < 4; round++) {
        const w = new TranscriptWriter();
        const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
        const lines = [w.user("delegate the work"), w.assistant("msg_main", text("delegating"))];
        for (const agent of agents) {
          lines.push(sidechain(w.user(`task for ${agent}`), agent));
          lines.push(sidechain(w.assistant(`msg_${agent}`, text(`${agent} done`)), agent));
        }
        lines.push(w.user("thanks"), w.assistant("msg_end", text("you are welcome")));
        await store.append(key, lines);
        const mirrorKey = { project: key.projectKey, session: key.sessionId };
        const expected = [key.sessionId, ...agents].map((thread) => mirrorSessionId(mirrorKey, 0, thread));
        expect(await store.sessionIds(key)).toEqual(expected);
        const [main] = await store.sessionIds(key);
        expect((await store.runtime.resume(main ?? "")).view().messages).toHaveLength(4);
      }
    });

    it("keeps the main thread first when its first line comes after a subagent's", async () => {
      const store = await (await fresh()).open();
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [
        sidechain(w.user("early task"), "agent-early"),
        sidechain(w.assistant("msg_early", text("early done")), "agent-early"),
      ]);
      await store.flush();
      await store.append(key, [w.user("hello"), w.assistant("msg_1", text("hi"))]);
      const mirrorKey = { project: key.projectKey, session: key.sessionId };
      expect(await store.sessionIds(key)).toEqual([
        mirrorSessionId(mirrorKey, 0, key.sessionId),
        mirrorSessionId(mirrorKey, 0, "agent-early"),
      ]);
    });

    it("finds a session by the SDK's session id alone, whatever project key it is stored under", async () => {
      const store = await (await fresh()).open();
      const w = new TranscriptWriter();
      // A project key the caller does not know: the SDK derives it from a working directory.
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [w.user("hello"), w.assistant("msg_1", text("hi"))]);
      expect(await store.keysOf(w.sessionId)).toEqual([key]);
      const byKey = await store.sessionIds(key);
      expect(byKey).toHaveLength(1);
      expect(await store.sessionIds(w.sessionId)).toEqual(byKey);
      const session = await store.runtime.resume(w.sessionId);
      expect(session.id).toBe(byKey[0]);
      expect(session.view().messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      const unknown = new TranscriptWriter().sessionId;
      expect(await store.keysOf(unknown)).toEqual([]);
      expect(await store.sessionIds(unknown)).toEqual([]);
      expect(await rejection(store.runtime.resume(unknown))).toMatchObject({ code: "NOT_FOUND" });
      expect(await rejection(store.keysOf(""))).toMatchObject({ code: "VALIDATION", details: { path: "sessionId" } });
    });

    it("refuses an SDK session id stored under two project keys, listing them, and takes either whole key", async () => {
      const store = await (await fresh()).open();
      const w = new TranscriptWriter();
      const one = { projectKey: `${newKey().projectKey}-b`, sessionId: w.sessionId };
      const two = { projectKey: `${one.projectKey.slice(0, -2)}-a`, sessionId: w.sessionId };
      const lines = [w.user("hello"), w.assistant("msg_1", text("hi"))];
      await store.append(one, lines);
      await store.append(two, lines);
      expect(await store.keysOf(w.sessionId)).toEqual([two, one]);
      const ambiguous = await rejection(store.sessionIds(w.sessionId));
      expect(isPalimpsestError(ambiguous, "VALIDATION")).toBe(true);
      expect(ambiguous).toMatchObject({
        name: "AmbiguousName",
        details: { kind: "project-key", name: w.sessionId, candidates: [two.projectKey, one.projectKey] },
      });
      const [first = ""] = await store.sessionIds(one);
      const [second = ""] = await store.sessionIds(two);
      expect(first).not.toBe(second);
      expect(await rejection(store.runtime.resume(w.sessionId))).toMatchObject({
        code: "VALIDATION",
        details: { kind: "session", candidates: [first, second].sort() },
      });
      expect((await store.runtime.resume(first)).id).toBe(first);
    });
  });
}
