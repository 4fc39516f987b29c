import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { mirrorSessionId } from "@palimpsest/store";
import { describe, expect, it } from "vitest";
import { TranscriptWriter, text } from "./claude-code-lines.ts";
import { type ContractContext, newKey } from "./contract-context.ts";

/** A line of the subagent thread `agentId`, as Claude Code writes sidechain lines into the main transcript. */
function sidechain(line: SessionStoreEntry, agentId: string): SessionStoreEntry {
  return { ...line, isSidechain: true, agentId };
}

/** sessionIds: which Palimpsest sessions a key is folded into, and in which order. */
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
  });
}
