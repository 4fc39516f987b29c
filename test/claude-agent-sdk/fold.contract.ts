import type { SessionKey } from "@anthropic-ai/claude-agent-sdk";
import type { PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { checkToolPairs, type Message } from "@palimpsest/core";
import { mirrorSessionId } from "@palimpsest/runtime/testing";
import { describe, expect, it, vi } from "vitest";
import { viewProblems } from "../support/view-invariants.ts";
import { TranscriptWriter, text, toolResult, toolUse } from "./claude-code-lines.ts";
import { type ContractContext, newKey } from "./contract-context.ts";

/** A settle far beyond any test: only flush (or sessionIds) folds a trailing assistant message. */
const NEVER_SETTLES = { settleMs: 600_000 };

/** The view of the key's main Palimpsest session, and the problems its log shows (viewProblems). */
async function mainView(store: PalimpsestSessionStore, key: SessionKey) {
  const [id] = await store.sessionIds(key);
  if (id === undefined) throw new Error("the key is folded into no session");
  const session = await store.runtime.resume(id);
  return {
    id,
    messages: session.view().messages,
    problems: viewProblems(session, await store.runtime.store.readStream(id)),
  };
}

/** What a message says, for comparisons: role, text, calls, the call it answers. */
function gist(message: Message) {
  return {
    role: message.role,
    text: message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])),
    calls: (message.toolCalls ?? []).map((c) => [c.id, c.name, JSON.parse(c.arguments)]),
    answers: message.toolCallId,
  };
}

/**
 * Waits for the background fold of `key`'s first append (no flush, so nothing settles): the session of
 * its main thread holds `count` messages. One fold writes all it folds in one append, so once they are
 * there that fold is done.
 */
async function backgroundFolded(store: PalimpsestSessionStore, key: SessionKey, count: number): Promise<Message[]> {
  const id = mirrorSessionId({ project: key.projectKey, session: key.sessionId }, 0, key.sessionId);
  return vi.waitFor(
    async () => {
      const messages = (await store.runtime.resume(id)).view().messages;
      if (messages.length < count) throw new Error(`${messages.length} of ${count} messages folded`);
      return messages;
    },
    { timeout: 20_000, interval: 20 },
  );
}

/** The fold into Palimpsest sessions: the conversation, held-back tails, merged and grown messages. */
export function foldContract({ fresh }: ContractContext): void {
  describe("the fold into a Palimpsest session", () => {
    it("names after flush a session whose view has the conversation, tool calls paired with results", async () => {
      const store = await (await fresh()).open(NEVER_SETTLES);
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [
        w.user("list the files"),
        w.assistant("msg_1", text("I will look")),
        w.assistant(
          "msg_1",
          toolUse("toolu_1", "Bash", { command: "ls" }),
          toolUse("toolu_2", "Bash", { command: "pwd" }),
        ),
      ]);
      await store.append(key, [
        w.user([toolResult("toolu_1", "a.txt\nb.txt")]),
        w.user([toolResult("toolu_2", "/home/USER/projects/demo")]),
        w.assistant("msg_2", text("two files in demo")),
        w.user("thanks"),
        w.assistant("msg_3", text("you are welcome")),
      ]);
      await store.flush();
      const { messages, problems } = await mainView(store, key);
      expect(problems).toEqual([]);
      expect(checkToolPairs(messages)).toEqual([]);
      expect(messages.map(gist)).toEqual([
        { role: "user", text: ["list the files"], calls: [], answers: undefined },
        {
          role: "assistant",
          text: ["I will look"],
          calls: [
            ["toolu_1", "Bash", { command: "ls" }],
            ["toolu_2", "Bash", { command: "pwd" }],
          ],
          answers: undefined,
        },
        { role: "tool", text: ["a.txt\nb.txt"], calls: [], answers: "toolu_1" },
        { role: "tool", text: ["/home/USER/projects/demo"], calls: [], answers: "toolu_2" },
        { role: "assistant", text: ["two files in demo"], calls: [], answers: undefined },
        { role: "user", text: ["thanks"], calls: [], answers: undefined },
        { role: "assistant", text: ["you are welcome"], calls: [], answers: undefined },
      ]);
      expect(messages[1]?.id).toBe("msg_1");
    });

    it("holds a trailing assistant message back until it settles, and folds it on flush", async () => {
      const store = await (await fresh()).open(NEVER_SETTLES);
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [w.user("hello?"), w.assistant("msg_1", text("hi there"))]);
      const before = await backgroundFolded(store, key, 1);
      expect(before.map(gist)).toEqual([{ role: "user", text: ["hello?"], calls: [], answers: undefined }]);
      await store.flush();
      const { messages, problems } = await mainView(store, key);
      expect(messages.map((m) => [m.role, ...gist(m).text])).toEqual([
        ["user", "hello?"],
        ["assistant", "hi there"],
      ]);
      expect(problems).toEqual([]);
    });

    it("folds the trailing message by itself once the key has been quiet for settleMs", async () => {
      const store = await (await fresh()).open({ settleMs: 50 });
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [w.user("hello?"), w.assistant("msg_1", text("settled by itself"))]);
      const messages = await backgroundFolded(store, key, 2);
      expect(messages.map((m) => [m.role, ...gist(m).text])).toEqual([
        ["user", "hello?"],
        ["assistant", "settled by itself"],
      ]);
    });

    it("folds an assistant message whose blocks (one message.id) came in two appends as one message", async () => {
      const store = await (await fresh()).open(NEVER_SETTLES);
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [
        w.user("read it"),
        w.assistant("msg_1", { type: "thinking", thinking: "hm", signature: "s" }),
      ]);
      await backgroundFolded(store, key, 1);
      await store.append(key, [
        w.assistant("msg_1", text("reading")),
        w.assistant("msg_1", toolUse("toolu_9", "Read", { file: "a" })),
      ]);
      await store.append(key, [w.user([toolResult("toolu_9", "contents of a")]), w.assistant("msg_2", text("done"))]);
      await store.flush();
      const { messages, problems } = await mainView(store, key);
      expect(problems).toEqual([]);
      expect(messages.map((m) => m.id).filter((id) => id.startsWith("msg_1"))).toHaveLength(1);
      expect(messages.map(gist)).toEqual([
        { role: "user", text: ["read it"], calls: [], answers: undefined },
        { role: "assistant", text: ["reading"], calls: [["toolu_9", "Read", { file: "a" }]], answers: undefined },
        { role: "tool", text: ["contents of a"], calls: [], answers: "toolu_9" },
        { role: "assistant", text: ["done"], calls: [], answers: undefined },
      ]);
    });

    it("revises a message that grew after it was folded: one message with both blocks, the log valid", async () => {
      const store = await (await fresh()).open(NEVER_SETTLES);
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [w.user("check the build"), w.assistant("msg_1", text("let me check"))]);
      await store.flush();
      expect((await mainView(store, key)).messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      await store.append(key, [w.assistant("msg_1", toolUse("toolu_1", "Bash", { command: "make" }))]);
      await store.flush();
      const grown = await mainView(store, key);
      expect(grown.problems).toEqual([]);
      expect(grown.messages.map(gist)).toEqual([
        { role: "user", text: ["check the build"], calls: [], answers: undefined },
        {
          role: "assistant",
          text: ["let me check"],
          calls: [["toolu_1", "Bash", { command: "make" }]],
          answers: undefined,
        },
      ]);
      const session = await store.runtime.resume(grown.id);
      expect((await session.history()).map((h) => h.mode)).toEqual(["import"]);
      // The conversation goes on after the revision, and the log stays valid.
      await store.append(key, [w.user([toolResult("toolu_1", "ok")]), w.assistant("msg_2", text("it builds"))]);
      await store.flush();
      const after = await mainView(store, key);
      expect(after.problems).toEqual([]);
      expect(after.messages.map((m) => [m.role, ...gist(m).text])).toEqual([
        ["user", "check the build"],
        ["assistant", "let me check"],
        ["tool", "ok"],
        ["assistant", "it builds"],
      ]);
      expect(checkToolPairs(after.messages)).toEqual([]);
    });

    it("folds a revision and the lines after it that arrive in one append", async () => {
      const folds: unknown[] = [];
      const store = await (await fresh()).open({ ...NEVER_SETTLES, onError: (error) => folds.push(error) });
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [
        w.user("go"),
        w.assistant("msg_1", { type: "thinking", thinking: "hm", signature: "s" }),
      ]);
      await store.flush();
      await store.append(key, [
        w.assistant("msg_1", text("running it")),
        w.assistant("msg_1", toolUse("toolu_1", "Bash", { command: "true" })),
        w.user([toolResult("toolu_1", "exit 0")]),
        w.assistant("msg_2", text("done")),
      ]);
      await store.flush();
      const { messages, problems } = await mainView(store, key);
      expect(problems).toEqual([]);
      expect(messages.map(gist)).toEqual([
        { role: "user", text: ["go"], calls: [], answers: undefined },
        {
          role: "assistant",
          text: ["running it"],
          calls: [["toolu_1", "Bash", { command: "true" }]],
          answers: undefined,
        },
        { role: "tool", text: ["exit 0"], calls: [], answers: "toolu_1" },
        { role: "assistant", text: ["done"], calls: [], answers: undefined },
      ]);
      expect(messages[1]?.reasoning).toBeDefined();
      expect(folds).toEqual([]);
    });

    // The fold of msg_1 with its pending call toolu_a is revised when toolu_b arrives (parallel tool_use
    // lines of one message, the second streamed after a settle or a flush): the revision carries toolu_a on.
    it("revises a message whose call is still pending when it grows a second call", async () => {
      const folds: unknown[] = [];
      const store = await (await fresh()).open({ ...NEVER_SETTLES, onError: (error) => folds.push(error) });
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [
        w.user("two things"),
        w.assistant("msg_1", toolUse("toolu_a", "Bash", { command: "a" })),
      ]);
      await store.flush();
      await store.append(key, [w.assistant("msg_1", toolUse("toolu_b", "Write", { file: "b", content: "long" }))]);
      await store.append(key, [
        w.user([toolResult("toolu_a", "A")]),
        w.user([toolResult("toolu_b", "B")]),
        w.assistant("msg_2", text("both done")),
      ]);
      await store.flush();
      const { messages, problems } = await mainView(store, key);
      expect(folds).toEqual([]);
      expect(problems).toEqual([]);
      expect(messages.map((m) => [m.role, ...(m.toolCalls ?? []).map((c) => c.id), m.toolCallId ?? ""])).toEqual([
        ["user", ""],
        ["assistant", "toolu_a", "toolu_b", ""],
        ["tool", "toolu_a"],
        ["tool", "toolu_b"],
        ["assistant", ""],
      ]);
    });

    // A line the Claude Code importer cannot read (a tool_use block without id and name) is left out of
    // the fold and reported once; it stays stored, and the lines after it are folded.
    it("keeps folding the lines after one the importer cannot read", async () => {
      const folds: unknown[] = [];
      const store = await (await fresh()).open({ ...NEVER_SETTLES, onError: (error) => folds.push(error) });
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [w.user("before"), w.assistant("msg_0", text("first reply"))]);
      await store.flush();
      const unreadable = { ...w.assistant("msg_bad", { type: "tool_use" }) };
      await store.append(key, [unreadable]);
      await store.append(key, [w.user("after"), w.assistant("msg_1", text("second reply"))]);
      await store.flush();
      expect((await store.load(key))?.length).toBe(5);
      const { messages } = await mainView(store, key);
      expect(messages.map((m) => gist(m).text.join(""))).toEqual(
        expect.arrayContaining(["before", "first reply", "after", "second reply"]),
      );
    });
  });
}
