import { type Conversation, openConversation, type ResponseEvent } from "@palimpsest/ai-sdk";
import { isPalimpsestError } from "@palimpsest/core";
import {
  createUIMessageStream,
  generateText,
  type ModelMessage,
  readUIMessageStream,
  stepCountIs,
  streamText,
  type UIMessage,
  validateUIMessages,
} from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { startScript } from "../support/child-script.ts";
import type { ConversationBackend } from "./conversation-backends.ts";
import { everyPartKind, normalized } from "./every-part-kind.ts";
import { expectAccepted, expectValidMessages, expectValidRequests } from "./request-checks.ts";
import { call, result, scriptedModel, streamingToolModel, text } from "./scripted-model.ts";
import { askTool, deleteTool, weatherTool } from "./tools.ts";

/** The conversation suite on one engine: every test on a database of its own. */
export function describeConversations(backend: ConversationBackend): void {
  describe.skipIf(backend.skip !== undefined)(`AI SDK conversations on ${backend.name}`, () => {
    let cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
      cleanups = [];
    });

    /** A fresh database; `open` opens conversations on it, closed after the test. */
    async function database() {
      const { url, drop } = await backend.create();
      cleanups.push(drop);
      return {
        url,
        async open(options: Parameters<typeof openConversation>[0] = {}): Promise<Conversation> {
          const conversation = await openConversation({ url, ...options });
          cleanups.push(() => conversation.close());
          return conversation;
        },
      };
    }

    /** One turn: save the user's message, run the tool loop, save the response. */
    async function turn(conversation: Conversation, question: string, model: MockLanguageModelV4, size = 0) {
      await conversation.save([{ role: "user", content: question }]);
      const answer = await generateText({
        model,
        tools: { weather: weatherTool(size) },
        ...(await conversation.load()),
        stopWhen: stepCountIs(5),
      });
      await conversation.saveResponse(answer);
      return answer;
    }

    it("saves a multi-step tool loop, loads it in a new process, and continues it there", async () => {
      const db = await database();
      const conversation = await db.open({ model: "gpt-4o" });
      const model = scriptedModel([
        result([
          { type: "reasoning", text: "need weather", providerMetadata: { openai: { itemId: "rs_1", enc: "e" } } },
          call("c1", "weather", { city: "Oslo" }),
          call("c2", "weather", { city: "Rome" }),
        ]),
        result([text("Both sunny.")]),
      ]);
      const answer = await turn(conversation, "Weather in Oslo and Rome?", model);
      expect(answer.steps).toHaveLength(2);
      const saved: ModelMessage[] = [
        { role: "user", content: "Weather in Oslo and Rome?" },
        ...answer.responseMessages,
      ];
      expect((await conversation.load()).messages).toEqual(saved);
      expectValidRequests(model);
      // The projection: one assistant message with both calls and the reasoning, one tool message per result.
      const view = conversation.session.view().messages;
      expect(view.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
      expect(view[1]?.toolCalls?.map((c) => c.id)).toEqual(["c1", "c2"]);
      expect(view[1]?.reasoning).toBeDefined();

      const child = startScript("test/ai-sdk/continue-child.script.ts", [db.url, conversation.sessionId]);
      const exit = await child.exited;
      expect(exit, child.stderr()).toEqual({ code: 0, signal: null });
      const [loadedThere, continued] = child.messages as [
        { loaded: { messages: ModelMessage[] } },
        { text: string; prompts: { role: string; content: unknown }[][] },
      ];
      expect(loadedThere.loaded.messages).toEqual(JSON.parse(JSON.stringify(saved)));
      expect(continued.text).toBe("Paris is sunny too.");
      expect(continued.prompts.map((p) => p.map((m) => m.role).join(","))).toEqual([
        "user,assistant,tool,assistant,user",
        "user,assistant,tool,assistant,user,assistant,tool",
      ]);

      const after = await conversation.load();
      expect(after.messages.slice(0, saved.length)).toEqual(saved);
      expect(after.messages.slice(saved.length).map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      await expectAccepted(after);
    });

    it.each([
      ["saved from onFinish, then saved() awaited", "saved"],
      ["saved from streamText's result (a structured output: text resolves before onFinish runs)", "result"],
      ["saved from onFinish, exiting without saved() (the control: the answer is lost)", "none"],
    ])("a streamed answer %s is stored when the process exits right after", async (_, how) => {
      const db = await database();
      const conversation = await db.open();
      const child = startScript("test/ai-sdk/stream-exit-child.script.ts", [db.url, conversation.sessionId, how]);
      expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
      expect(child.messages).toEqual([{ text: "Thanks." }]);
      const reopened = await db.open({ sessionId: conversation.sessionId });
      const loaded = await reopened.load();
      if (how === "none") {
        expect(loaded.messages.map((m) => m.role)).toEqual(["user"]);
        return;
      }
      expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      expect(loaded.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Thanks." }] });
      expect(reopened.session.state.turns).toBe(1); // the turn completed: the whole save ran
    });

    it("saved() rejects with a save's error the AI SDK swallowed in onFinish, not one its caller caught; close() waits for saves in flight", async () => {
      const db = await database();
      const conversation = await db.open();
      // A handler turns a refused save into a 400: the error is its caller's, and saved() does not repeat it.
      await expect(conversation.save([{ role: "robot" } as never])).rejects.toMatchObject({ code: "VALIDATION" });
      await expect(conversation.saved()).resolves.toBeUndefined();

      const result = streamText({
        model: streamingModel(true),
        messages: [{ role: "user", content: "Hello" }],
        // A response whose first message the adapter refuses: the save fails, and streamText goes on.
        onFinish: (event) =>
          conversation.onFinish({
            ...event,
            responseMessages: [{ role: "robot" } as never, ...event.responseMessages],
          }),
      });
      expect(await result.text).toBe("Hi there.");
      await expect(conversation.saved()).rejects.toMatchObject({ code: "VALIDATION" });
      await expect(conversation.saved()).resolves.toBeUndefined(); // reported once

      // The same for a UI message stream's onFinish: onSaved hears the failure (and can close), saved() has its error.
      const heard: unknown[] = [];
      const options = conversation.uiMessageStreamOptions([], (outcome) => {
        heard.push(outcome);
      });
      const refused = { id: "r1", role: "robot", parts: [] };
      await options.onFinish({
        responseMessage: refused,
        messages: [refused],
        isContinuation: false,
        isAborted: false,
        isCancelled: false,
        outcome: { status: "completed" },
        finishReason: "stop",
      } as never);
      expect(heard).toEqual([{ saved: false, reason: "save failed" }]);
      await expect(conversation.saved()).rejects.toMatchObject({ code: "VALIDATION" });

      const writer = await openConversation({ url: db.url, sessionId: conversation.sessionId });
      const saving = writer.save([{ role: "user", content: "stored before the store closes" }]);
      await writer.close();
      await saving;
      expect((await conversation.load()).messages).toEqual([
        { role: "user", content: "stored before the store closes" },
      ]);
      // After close() every call is refused the same way, its store closed or not (a fork shares its store).
      const fork = await conversation.fork();
      await fork.close();
      const closed = {
        code: "STORAGE",
        retryable: false,
        message: "conversation: this conversation is closed: open another with openConversation",
      };
      for (const handle of [writer, fork]) {
        await expect(handle.load()).rejects.toMatchObject(closed);
        await expect(handle.save([{ role: "user", content: "late" }])).rejects.toMatchObject(closed);
        await expect(handle.loadUIMessages()).rejects.toMatchObject(closed);
        await expect(handle.compact({ force: true })).rejects.toMatchObject(closed);
        const { recall } = handle.recallTools();
        await expect(recall.execute?.({ query: "stored" }, {} as never)).rejects.toMatchObject(closed);
      }
      expect((await conversation.load()).messages).toHaveLength(1); // the parent is open and holds no late message
    });

    /** Expects the conversation to hold each question and its answer's response messages once, one turn each. */
    async function expectStoredOnce(
      conversation: Conversation,
      turns: readonly (readonly [question: string, answer: { responseMessages: readonly ModelMessage[] }])[],
    ) {
      const expected = turns.flatMap(([question, answer]) => [
        { role: "user", content: question },
        ...answer.responseMessages,
      ]);
      expect((await conversation.load()).messages).toEqual(expected);
      expect(conversation.session.state.turns).toBe(turns.length);
    }

    /** A weather tool loop: a call (`callId`), then a text answer. */
    const weatherLoop = (answer: string, callId = "c1") =>
      scriptedModel([result([call(callId, "weather", { city: "Oslo" })]), result([text(answer)])]);

    it.each([
      // A tool loop's calls are refused again by the log (a duplicate call id); a text answer has nothing to refuse.
      ["a tool loop", () => weatherLoop("Sunny.")],
      ["a text answer", () => scriptedModel([result([text("Hello.")])])],
    ])("%s saved twice with saveResponse is stored once: the second save writes nothing", async (_, model) => {
      const db = await database();
      const conversation = await db.open();
      const answer = await turn(conversation, "Weather in Oslo?", model());
      const seq = conversation.session.state.lastSeq;
      await conversation.saveResponse(answer);
      await conversation.session.refresh();
      expect(conversation.session.state.lastSeq).toBe(seq);
      await expectStoredOnce(conversation, [["Weather in Oslo?", answer]]);
      await expectAccepted(await conversation.load());
    });

    it.each([
      ["generateText", false],
      ["streamText", true],
    ])("a response saved from onFinish and from %s's result is stored once", async (_, stream) => {
      const db = await database();
      const conversation = await db.open();
      await conversation.save([{ role: "user", content: "Weather in Oslo?" }]);
      const request = {
        tools: { weather: weatherTool() },
        ...(await conversation.load()),
        stopWhen: stepCountIs(5),
        onFinish: conversation.onFinish,
      };
      const answer = stream
        ? streamText({ ...request, model: streamingToolModel("weather", { city: "Oslo" }) })
        : await generateText({ ...request, model: weatherLoop("Sunny.") });
      await conversation.saveResponse(answer);
      await conversation.saved();
      const responseMessages = await answer.responseMessages;
      expect(responseMessages.map((m) => m.role)).toEqual(["assistant", "tool", "assistant"]);
      await expectStoredOnce(conversation, [["Weather in Oslo?", { responseMessages }]]);
      await expectAccepted(await conversation.load());
    });

    it("a response whose save failed is stored by saving it again, and once; a save waiting on a failed one stores it", async () => {
      const db = await database();
      const conversation = await db.open();
      /** The user's question and the model's answer, which onFinish saves `broken` (with a message the adapter refuses). */
      const ask = async (question: string, callId: string, broken = false) => {
        await conversation.save([{ role: "user", content: question }]);
        return generateText({
          model: weatherLoop("Sunny.", callId),
          tools: { weather: weatherTool() },
          ...(await conversation.load()),
          stopWhen: stepCountIs(5),
          ...(broken
            ? {
                onFinish: (event: ResponseEvent) =>
                  conversation.onFinish({ ...event, responseMessages: [{ role: "robot" } as never] }),
              }
            : {}),
        });
      };
      /**
       * The answer as a response whose steps carry no usage, and whose usage (awaited then) rejects the first
       * time it is read: the save that reads it fails after it remembered the response, before it writes.
       */
      const failingOnce = (answer: Awaited<ReturnType<typeof ask>>): ResponseEvent => {
        let reads = 0;
        return {
          responseMessages: answer.responseMessages,
          steps: answer.steps.map(({ response }) => ({ response })) as never,
          get usage() {
            reads += 1;
            return reads === 1 ? Promise.reject(new Error("usage lost")) : Promise.resolve(answer.usage);
          },
        };
      };

      const first = await ask("Weather in Oslo?", "c1", true);
      const event = failingOnce(first);
      await expect(conversation.saveResponse(event)).rejects.toThrow("usage lost");
      expect((await conversation.load()).messages).toEqual([{ role: "user", content: "Weather in Oslo?" }]);
      await conversation.saveResponse(event); // the retry stores it
      await conversation.saveResponse(first); // the same response from the result: nothing written
      await expect(conversation.saved()).rejects.toMatchObject({ code: "VALIDATION" }); // onFinish's failure
      await expectStoredOnce(conversation, [["Weather in Oslo?", first]]);

      // Saved twice at once, the first save failing: the second waits for it, then stores the response itself.
      const second = await ask("And in Rome?", "c2");
      const twice = failingOnce(second);
      const both = await Promise.allSettled([conversation.saveResponse(twice), conversation.saveResponse(twice)]);
      expect(both).toMatchObject([{ status: "rejected", reason: { message: "usage lost" } }, { status: "fulfilled" }]);
      await expectStoredOnce(conversation, [
        ["Weather in Oslo?", first],
        ["And in Rome?", second],
      ]);
      await conversation.saveResponse(second); // a save after that does not store it again
      await expectStoredOnce(conversation, [
        ["Weather in Oslo?", first],
        ["And in Rome?", second],
      ]);
      await expectAccepted(await conversation.load());
    });

    it("two responses in a row, each saved from onFinish and from the result, are both stored, once each", async () => {
      const db = await database();
      const conversation = await db.open();
      const answers = [];
      for (const [question, reply, callId] of [
        ["Weather in Oslo?", "Sunny.", "c1"],
        ["And tomorrow?", "Rain.", "c2"],
      ] as const) {
        await conversation.save([{ role: "user", content: question }]);
        const answer = await generateText({
          model: weatherLoop(reply, callId),
          tools: { weather: weatherTool() },
          ...(await conversation.load()),
          stopWhen: stepCountIs(5),
          onFinish: conversation.onFinish,
        });
        await conversation.saveResponse(answer);
        answers.push([question, answer] as const);
      }
      await conversation.saved();
      const [first, second] = answers;
      if (first === undefined || second === undefined) throw new Error("two turns expected");
      expect(second[1].text).toBe("Rain.");
      await conversation.saveResponse(second[1]); // saved a third time: still nothing written
      await expectStoredOnce(conversation, [first, second]);
    });

    it("a server that answers every request with one response id: each new answer is stored, a response saved twice once", async () => {
      const db = await database();
      const conversation = await db.open();
      const replies = ["OK.", "OK.", "More."];
      const model = new MockLanguageModelV4({
        doGenerate: async () => ({ ...result([text(replies.shift() ?? "")]), response: { id: "msg_1" } }),
      });
      const answer = async () => {
        const response = await generateText({ model, ...(await conversation.load()) });
        expect(response.steps.map((step) => step.response.id)).toEqual(["msg_1"]);
        await conversation.saveResponse(response);
        await conversation.saveResponse(response); // the same response: nothing written
      };
      await conversation.save([{ role: "user", content: "Done?" }]);
      await answer();
      await conversation.save([{ role: "user", content: "Really?" }]);
      await answer(); // the same id and the same words as the last turn's, a new answer all the same
      await answer(); // no user message between: the same id, other words
      const assistant = (reply: string) => ({ role: "assistant", content: [{ type: "text", text: reply }] });
      expect((await conversation.load()).messages).toEqual([
        { role: "user", content: "Done?" },
        assistant("OK."),
        { role: "user", content: "Really?" },
        assistant("OK."),
        assistant("More."),
      ]);
    });

    it("compacts a long tool loop under a small window: every request stays valid and fits", async () => {
      const db = await database();
      const conversation = await db.open({ model: "gpt-4o", contextWindow: 4_000 });
      const requests: MockLanguageModelV4[] = [];
      for (let i = 0; i < 12; i++) {
        const model = scriptedModel([
          result([call(`w${i}`, "weather", { city: `city ${i}` })]),
          result([text(`City ${i} is sunny.`)]),
        ]);
        requests.push(model);
        await turn(conversation, `Weather in city ${i}?`, model, 300);
      }
      const history = await conversation.session.history();
      expect(history.length).toBeGreaterThan(0);
      expect(history.every((h) => h.trigger === "auto")).toBe(true);
      for (const model of requests) expectValidRequests(model);
      expect(conversation.session.state.liveTokens).toBeLessThan(4_000);
      const loaded = await conversation.load();
      expect(loaded.messages.at(-1)).toEqual({
        role: "assistant",
        content: [{ type: "text", text: "City 11 is sunny." }],
      });
      // The summary has no source to restore: it is rendered from its projection, as plain text.
      const summary = loaded.messages.find((m) => JSON.stringify(m).includes("CONTEXT SUMMARY"));
      expect(summary?.content).toEqual([{ type: "text", text: expect.stringContaining("CONTEXT SUMMARY") }]);
      await expectAccepted(loaded);
    });

    it("a stub that replaced a tool output (trimmed on append) renders as that call's result", async () => {
      const db = await database();
      const conversation = await db.open({ compaction: { trimOnAppend: true, profile: "local" } });
      const model = scriptedModel([result([call("big", "weather", { city: "Oslo" })]), result([text("Long.")])]);
      await turn(conversation, "The whole forecast?", model, 2_000);
      const [, , entry] = conversation.session.state.live;
      expect(entry?.placedBy?.kind).toBe("stub");
      const loaded = await conversation.load();
      expect(loaded.messages[2]).toEqual({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "big",
            toolName: "weather",
            output: { type: "text", value: expect.stringContaining("elided from this tool output") },
          },
        ],
      });
      await expectAccepted(loaded);
    });

    it("prepareStep compacts inside one multi-step loop, and saveResponse saves only the rest", async () => {
      const db = await database();
      const conversation = await db.open({ model: "gpt-4o", contextWindow: 4_000 });
      const steps = Array.from({ length: 10 }, (_, i) => result([call(`s${i}`, "weather", { city: `c${i}` })]));
      const model = scriptedModel([...steps, result([text("Done.")])]);
      await conversation.save([{ role: "user", content: "Check ten cities" }]);
      const answer = await generateText({
        model,
        tools: { weather: weatherTool(300) },
        ...(await conversation.load()),
        stopWhen: stepCountIs(20),
        prepareStep: conversation.prepareStep,
      });
      await conversation.saveResponse(answer);
      expect(answer.text).toBe("Done.");
      expect((await conversation.session.history()).length).toBeGreaterThan(0);
      expectValidRequests(model);
      // The last request carried a summary and the newest results, not all ten outputs.
      const lastPrompt = model.doGenerateCalls.at(-1)?.prompt ?? [];
      expect(model.doGenerateCalls).toHaveLength(11);
      expect(lastPrompt.filter((m) => m.role === "tool").length).toBeLessThan(5);
      const loaded = await conversation.load();
      // Every call stored once: no step saved twice by prepareStep and saveResponse.
      const calls = conversation.session.state.live.flatMap((e) => e.message.toolCalls ?? []).map((c) => c.id);
      expect(new Set(calls).size).toBe(calls.length);
      expect(loaded.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "Done." }] });
      await expectAccepted(loaded);
    });

    it("round-trips every part kind deep-equal, in a new handle and in a new process", async () => {
      const db = await database();
      const first = await db.open();
      const { instructions, messages } = everyPartKind();
      await first.save([...instructions, ...messages]);
      const again = await db.open({ sessionId: first.sessionId });
      const loaded = await again.load();
      expect(loaded.instructions).toEqual(instructions);
      expect(loaded.messages).toEqual(messages);
      // Bytes come back as bytes and URLs as URLs (toEqual alone would not tell).
      const user = loaded.messages[1] as { content: { image?: unknown; data?: unknown }[] };
      expect(user.content[2]?.image).toBeInstanceOf(URL);
      expect(user.content[3]?.image).toBeInstanceOf(Uint8Array);
      expectValidMessages(loaded.messages);
      await first.close(); // the other process reads the file (SQLite) or the database on its own

      const child = startScript("test/ai-sdk/load-child.script.ts", [db.url, first.sessionId]);
      expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
      expect(child.messages).toEqual([normalized({ instructions, messages })]);
    });

    it("a tool approval: the request saved, the response recorded on the asking message, the run resumed", async () => {
      const db = await database();
      const conversation = await db.open();
      await conversation.save([{ role: "user", content: "Delete /tmp/x" }]);
      const model = scriptedModel([
        result([call("d1", "delete_file", { path: "/tmp/x" })]),
        result([text("Deleted.")]),
      ]);
      const asked = await generateText({ model, tools: { delete_file: deleteTool }, ...(await conversation.load()) });
      await conversation.saveResponse(asked);
      const request = asked.responseMessages[0]?.content as { type: string; approvalId?: string }[];
      const approvalId = request.find((p) => p.type === "tool-approval-request")?.approvalId ?? "";
      expect(approvalId).not.toBe("");

      const other = await db.open({ sessionId: conversation.sessionId }); // the approval arrives in another request
      await other.save([{ role: "tool", content: [{ type: "tool-approval-response", approvalId, approved: true }] }]);
      const resumed = await generateText({ model, tools: { delete_file: deleteTool }, ...(await other.load()) });
      expect(resumed.text).toBe("Deleted.");
      await other.saveResponse(resumed);
      const loaded = await other.load();
      expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
      expect(loaded.messages[2]).toEqual({
        role: "tool",
        content: [{ type: "tool-approval-response", approvalId, approved: true }],
      });
      expect(loaded.messages[3]?.content).toMatchObject([{ type: "tool-result", toolCallId: "d1" }]);
      // Recorded as a retract supersede: the original asking message is one expand away.
      const [record] = await other.session.history();
      expect(record?.mode).toBe("retract");
      await expectAccepted(loaded);
    });

    it("UI messages: a complete stream is saved, a cancelled one is not", async () => {
      const db = await database();
      const conversation = await db.open();
      const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Hello" }] };
      await conversation.saveUIMessages([user]);
      const complete = streamText({ model: streamingModel(true), ...(await conversation.load()) });
      const saved = await consume(conversation, complete.toUIMessageStream.bind(complete), [user], false);
      expect(saved).toEqual({ saved: true });
      const afterComplete = await conversation.load();
      expect(afterComplete.messages).toEqual([
        { role: "user", content: [{ type: "text", text: "Hello" }] },
        { role: "assistant", content: [{ type: "text", text: "Hi there." }] },
      ]);

      const user2: UIMessage = { id: "u2", role: "user", parts: [{ type: "text", text: "Tell me more" }] };
      await conversation.saveUIMessages([user2]);
      const lastSeq = conversation.session.state.lastSeq;
      const cancelled = streamText({ model: streamingModel(false), ...(await conversation.load()) });
      const outcome = await consume(conversation, cancelled.toUIMessageStream.bind(cancelled), [user, user2], true);
      expect(outcome).toEqual({ saved: false, reason: "cancelled" });
      // Aborted on the server side (a timeout, a stop button): not saved either.
      const abort = new AbortController();
      const aborted = streamText({
        model: streamingModel(false),
        ...(await conversation.load()),
        abortSignal: abort.signal,
      });
      const abortedOutcome = await consume(
        conversation,
        aborted.toUIMessageStream.bind(aborted),
        [user, user2],
        false,
        () => abort.abort(),
      );
      expect(abortedOutcome).toEqual({ saved: false, reason: "aborted" });
      await conversation.session.refresh();
      expect(conversation.session.state.lastSeq).toBe(lastSeq);
      const loaded = await conversation.load();
      expect(loaded.messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "Tell me more" }] });
      await expect(
        conversation.saveUIMessages([
          { id: "a9", role: "assistant", parts: [{ type: "text", text: "Part", state: "streaming" }] },
        ]),
      ).rejects.toMatchObject({ code: "VALIDATION" });
      await expect(
        conversation.saveUIMessages([{ id: "u9", role: "robot", parts: [{ type: "text", text: "x" }] } as never]),
      ).rejects.toMatchObject({ code: "VALIDATION" });
      // A ModelMessage where a UIMessage belongs (no parts): VALIDATION naming it, not a TypeError.
      await expect(conversation.saveUIMessages([{ role: "user", content: "hi" } as never])).rejects.toMatchObject({
        code: "VALIDATION",
        message: expect.stringContaining("is not a UIMessage"),
      });
      await expect(
        conversation.saveUIMessages([
          {
            id: "u9",
            role: "user",
            parts: [
              { type: "text", text: "x" },
              { type: "data-when", data: new Date() },
            ],
          },
        ]),
      ).rejects.toMatchObject({ code: "VALIDATION" });
      // The page reloads with what completed: the cancelled and aborted responses are not there.
      const ui = await conversation.loadUIMessages();
      expect(ui.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
      expect(ui[2]).toEqual(user2);
    });

    it("UI messages load back as the page had them (data parts, step-start, sources, files, metadata), here and in another process", async () => {
      const db = await database();
      const conversation = await db.open({ contextWindow: 3_000 });
      const user: UIMessage = {
        id: "u1",
        role: "user",
        metadata: { sentAt: 1_700_000_000_000 },
        parts: [
          { type: "text", text: "Weather where this photo was taken?" },
          { type: "file", mediaType: "image/png", filename: "sky.png", url: "data:image/png;base64,iVBORw0KGgo=" },
          { type: "data-location", data: { lat: 59.91, lon: 10.75 } },
        ],
      };
      await conversation.saveUIMessages([user]);
      const options = conversation.uiMessageStreamOptions([user]);
      const tools = { weather: weatherTool() };
      const withCall = [
        { type: "source", sourceType: "url", id: "src1", url: "https://met.no/oslo", title: "MET Norway" },
        { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgo=" } },
      ];
      const stream = createUIMessageStream({
        ...options,
        execute: async ({ writer }) => {
          const result = streamText({
            model: streamingToolModel(
              "weather",
              { city: "Oslo" },
              { callId: "w1", answer: "Sunny in Oslo.", withCall },
            ),
            tools,
            ...(await conversation.load()),
            stopWhen: stepCountIs(3),
          });
          writer.merge(
            result.toUIMessageStream({
              sendSources: true,
              messageMetadata: ({ part }) => (part.type === "finish" ? { model: "mock" } : undefined),
            }),
          );
          await result.finishReason;
          writer.write({ type: "data-status", id: "s1", data: { state: "done" } });
          writer.setOutcome({ status: "completed" }); // createUIMessageStream's outcome is the caller's to declare
        },
      });
      let page: UIMessage | undefined; // what useChat shows: the client's reading of the stream
      for await (const message of readUIMessageStream({ stream })) page = message;
      if (page === undefined) throw new Error("the stream gave no message");
      expect(page.parts.map((p) => p.type)).toEqual([
        "step-start",
        "source-url",
        "file",
        "tool-weather",
        "step-start",
        "text",
        "data-status",
      ]);
      expect(page.parts.at(-1)).toEqual({ type: "data-status", id: "s1", data: { state: "done" } });
      expect(page.metadata).toEqual({ model: "mock" });

      const loaded = await conversation.loadUIMessages();
      expect(loaded).toEqual([user, page]);
      await expect(validateUIMessages({ messages: loaded, tools })).resolves.toEqual(loaded);
      // The model's view holds what the model needs: the UI-only parts stay out of it.
      expect((await conversation.load()).messages.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "assistant",
      ]);
      const reopened = await db.open({ sessionId: conversation.sessionId });
      expect(await reopened.loadUIMessages()).toEqual(loaded);
      const child = startScript("test/ai-sdk/load-child.script.ts", [db.url, conversation.sessionId, "ui"]);
      expect(await child.exited, child.stderr()).toEqual({ code: 0, signal: null });
      expect(child.messages).toEqual([JSON.parse(JSON.stringify(loaded))]);

      // Sent again: nothing new is nothing written; a new copy for the page alone (metadata, a data part) replaces the stored one.
      const seq = conversation.session.state.lastSeq;
      await conversation.saveUIMessages([user]);
      expect(conversation.session.state.lastSeq).toBe(seq);
      const edited: UIMessage = {
        ...user,
        metadata: { sentAt: 1_700_000_000_000, pinned: true },
        parts: [...user.parts, { type: "data-note", data: "pinned by the user" }],
      };
      await conversation.saveUIMessages([edited]);
      expect(await conversation.loadUIMessages()).toEqual([edited, page]);
      expect((await conversation.session.history()).map((c) => c.producer.policy)).toEqual(["ai-sdk-ui-message"]);
      expect((await conversation.load()).messages.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "assistant",
      ]);
      const afterEdit = conversation.session.state.lastSeq;
      await conversation.saveUIMessages([edited]);
      expect(conversation.session.state.lastSeq).toBe(afterEdit);
      // The same message with its keys in another order (as another client serializes it) is the same message.
      const reordered = reverseKeys(edited) as UIMessage;
      expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(edited));
      await conversation.saveUIMessages([reordered]);
      expect(conversation.session.state.lastSeq).toBe(afterEdit);

      // More turns, then a compaction summarizes the first ones for the model; the page still shows every message.
      const shown = [edited, page];
      for (const id of ["u2", "u3", "u4", "u5", "u6"]) {
        const next: UIMessage = { id, role: "user", parts: [{ type: "text", text: `And ${id}?` }] };
        await conversation.saveUIMessages([next]);
        const answer = streamText({
          model: streamingToolModel("weather", { city: id }, { callId: `call-${id}` }),
          tools: { weather: weatherTool(300) }, // big outputs: the view goes over its window
          ...(await conversation.load()),
          stopWhen: stepCountIs(3),
        });
        shown.push(
          next,
          await responseOf(conversation, answer.toUIMessageStream.bind(answer), [...shown, next], `a-${id}`),
        );
      }
      expect((await conversation.session.history()).map((c) => c.mode)).toContain("summary");
      expect(await conversation.loadUIMessages()).toEqual(shown);
      // A fork's log starts with the view at the fork point: the UI messages compacted before it are not in it.
      const fork = await conversation.fork();
      const forked = await fork.loadUIMessages();
      expect(forked.length).toBeGreaterThan(0);
      expect(forked.length).toBeLessThan(shown.length);
      expect(shown.slice(-forked.length)).toEqual(forked);
    });

    it("UI messages that grow (a client tool's output, an approval) and their continued responses are saved once", async () => {
      const db = await database();
      const conversation = await db.open();
      const user: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Ask me, then delete /x" }] };
      await conversation.saveUIMessages([user]);
      await conversation.saveUIMessages([user]); // sent again (a retry): nothing new
      const model = streamingToolModel("ask", { question: "Sure?" });
      const tools = { ask: askTool };
      const first = streamText({ model, tools, ...(await conversation.load()) });
      const asked = await responseOf(conversation, first.toUIMessageStream.bind(first), [user]);
      const part = asked.parts.find((p) => p.type === "tool-ask");
      expect(part).toMatchObject({ state: "input-available" });

      // The client ran the tool: the same assistant message, grown by its output, comes back.
      const answered = {
        ...asked,
        parts: asked.parts.map((p) => (p === part ? { ...p, state: "output-available", output: "yes" } : p)),
      } as UIMessage;
      await conversation.saveUIMessages([answered]);
      const continued = streamText({ model, tools, ...(await conversation.load()) });
      const final = await responseOf(conversation, continued.toUIMessageStream.bind(continued), [user, answered]);
      expect(final.id).toBe(asked.id);
      const loaded = await conversation.load();
      expect(loaded.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
      expect(loaded.messages[2]?.content).toMatchObject([
        { type: "tool-result", output: { type: "text", value: "yes" } },
      ]);
      expect(loaded.messages[3]).toEqual({ role: "assistant", content: [{ type: "text", text: "Thanks." }] });
      await expectAccepted(loaded);

      // A tool that needs approval: the request streamed, the approval added to that message, the run resumed.
      const user2: UIMessage = { id: "u2", role: "user", parts: [{ type: "text", text: "Now delete /x" }] };
      await conversation.saveUIMessages([user2]);
      const deleting = streamingToolModel("delete_file", { path: "/x" });
      const dangerous = { delete_file: deleteTool };
      const history = [user, final, user2];
      const third = streamText({ model: deleting, tools: dangerous, ...(await conversation.load()) });
      const request = await responseOf(conversation, third.toUIMessageStream.bind(third), history, "a2");
      const pending = request.parts.find((p) => p.type === "tool-delete_file") as { approval?: { id: string } };
      expect(pending).toMatchObject({ state: "approval-requested" });
      const approved = {
        ...request,
        parts: request.parts.map((p) =>
          p === pending
            ? { ...p, state: "approval-responded", approval: { id: pending.approval?.id, approved: true } }
            : p,
        ),
      } as UIMessage;
      await conversation.saveUIMessages([approved]);
      const fourth = streamText({ model: deleting, tools: dangerous, ...(await conversation.load()) });
      const done = await responseOf(conversation, fourth.toUIMessageStream.bind(fourth), [...history, approved], "a2");
      expect(done.parts.find((p) => p.type === "tool-delete_file")).toMatchObject({ output: "deleted /x" });
      const afterApproval = await conversation.load();
      expect(afterApproval.messages.slice(4).map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
      ]);
      expect(afterApproval.messages[7]?.content).toMatchObject([
        { type: "tool-result", output: { value: "deleted /x" } },
      ]);
      await expectAccepted(afterApproval);
      // Each UI message as it last grew, in the order the page has them.
      expect(await conversation.loadUIMessages()).toEqual([user, final, user2, done]);
    });

    it("the same UI messages saved by two connections at once (two tabs, one request sent twice) are stored once", async () => {
      const db = await database();
      const first = await db.open();
      const second = await db.open({ sessionId: first.sessionId });
      const messages: UIMessage[] = [
        { id: "u1", role: "user", parts: [{ type: "text", text: "Hello from two tabs" }] },
        { id: "a1", role: "assistant", parts: [{ type: "text", text: "Hello once" }] },
      ];
      await Promise.all([first.saveUIMessages(messages), second.saveUIMessages(messages)]);
      const loaded = await first.load();
      expect(loaded.messages).toEqual([
        { role: "user", content: [{ type: "text", text: "Hello from two tabs" }] },
        { role: "assistant", content: [{ type: "text", text: "Hello once" }] },
      ]);
      expect(await second.load()).toEqual(loaded);
    });

    it("forks at a turn and at a seq: the fork is the parent's view then, and writes never cross", async () => {
      const db = await database();
      const parent = await db.open({ model: "gpt-4o" });
      const model = () =>
        scriptedModel([result([call(`c${Math.random()}`, "weather", { city: "Oslo" })]), result([text("Sunny.")])]);
      await turn(parent, "first", model());
      const atTurnOne = await parent.load();
      const seq = parent.session.state.lastSeq;
      await turn(parent, "second", model());

      const byTurn = await parent.fork({ atTurn: 1 });
      const bySeq = await parent.fork({ atSeq: seq });
      expect(byTurn.sessionId).not.toBe(parent.sessionId);
      expect(bySeq.session.state.started?.parent).toEqual({
        sessionId: parent.sessionId,
        relation: "fork",
        atSeq: seq,
      });
      expect(await byTurn.load()).toEqual(atTurnOne);
      expect(await bySeq.load()).toEqual(atTurnOne);
      expect((await (await parent.fork({ atTurn: 0 })).load()).messages).toEqual([]);

      await byTurn.save([{ role: "user", content: "only in the fork" }]);
      await parent.save([{ role: "user", content: "only in the parent" }]);
      const forkText = JSON.stringify(await byTurn.load());
      const parentText = JSON.stringify(await parent.load());
      expect(forkText).toContain("only in the fork");
      expect(forkText).not.toContain("only in the parent");
      expect(forkText).not.toContain("second");
      expect(parentText).not.toContain("only in the fork");
      const reopened = await db.open({ sessionId: byTurn.sessionId });
      expect(JSON.stringify(await reopened.load())).toBe(forkText);
      await expectAccepted(await bySeq.load());
    });

    it("bad input is a typed error and stores nothing", async () => {
      const db = await database();
      const conversation = await db.open();
      await turn(
        conversation,
        "Weather?",
        scriptedModel([result([call("c1", "weather", { city: "x" })]), result([text("ok")])]),
      );
      const before = await conversation.load();
      const seq = conversation.session.state.lastSeq;
      const attempts: [string, unknown][] = [
        ["VALIDATION", [{ role: "robot", content: "hi" }]],
        ["VALIDATION", [{ role: "user", content: [{ type: "video", data: "x" }] }]],
        ["VALIDATION", { role: "user", content: "not a list" }],
        ["VALIDATION", [{ role: "user", content: "hi", providerOptions: { x: { when: new Date() } } }]],
        ["VALIDATION", [{ role: "user", content: "hi", providerOptions: { x: { $aiSdk: "url" } } }]],
        [
          "VALIDATION",
          [{ role: "tool", content: [{ type: "tool-approval-response", approvalId: "nope", approved: true }] }],
        ],
        [
          "INVARIANT_VIOLATED",
          [
            { role: "user", content: "this one would be lost with the next" },
            {
              role: "tool",
              content: [
                { type: "tool-result", toolCallId: "nope", toolName: "weather", output: { type: "text", value: "x" } },
              ],
            },
          ],
        ],
        [
          "INVARIANT_VIOLATED",
          [
            {
              role: "tool",
              content: [
                {
                  type: "tool-result",
                  toolCallId: "c1",
                  toolName: "weather",
                  output: { type: "text", value: "again" },
                },
              ],
            },
          ],
        ],
      ];
      for (const [code, input] of attempts) {
        const error = await conversation.save(input as ModelMessage[]).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isPalimpsestError(error), String(error)).toBe(true);
        expect((error as { code: string }).code, JSON.stringify(input)).toBe(code);
      }
      // A value JSON cannot hold is refused at its own path, wherever the AI SDK's schema would refuse the message.
      const settings = new Map([["region", "eu"]]);
      const mapped = [
        { role: "user", content: "hi", providerOptions: { x: { settings } } },
      ] as unknown as ModelMessage[];
      await expect(conversation.save(mapped)).rejects.toMatchObject({
        code: "VALIDATION",
        details: { path: "messages[0].providerOptions.x.settings" },
      });
      await conversation.session.refresh();
      expect(conversation.session.state.lastSeq).toBe(seq);
      expect(await conversation.load()).toEqual(before);
      await expect(openConversation({ url: db.url, sessionId: "x", modle: "gpt-4o" } as never)).rejects.toMatchObject({
        code: "VALIDATION",
        details: { path: "modle" },
      });
    });
  });
}

/** A streaming mock: the whole answer (`finish`), or a first delta and then nothing, as a slow model does. */
function streamingModel(finish: boolean): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "text-start", id: "t1" });
          controller.enqueue({ type: "text-delta", id: "t1", delta: finish ? "Hi there." : "Partial " });
          if (!finish) return;
          controller.enqueue({ type: "text-end", id: "t1" });
          const usage = {
            inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 3, text: 3, reasoning: 0 },
          };
          controller.enqueue({ type: "finish", finishReason: { unified: "stop", raw: undefined }, usage });
          controller.close();
        },
      }),
    }),
  });
}

/**
 * Reads a UI message stream made with the conversation's options to its end, or (`cancel`) cancels it
 * after the first text delta, as a client that went away (`onDelta` hears each delta); resolves with what the save did.
 */
async function consume(
  conversation: Conversation,
  toStream: (options: ReturnType<Conversation["uiMessageStreamOptions"]>) => ReadableStream<{ type: string }>,
  original: UIMessage[],
  cancel: boolean,
  onDelta: () => void = () => {},
): Promise<unknown> {
  let report: (outcome: unknown) => void = () => {};
  const saved = new Promise((resolve) => {
    report = resolve;
  });
  const reader = toStream(conversation.uiMessageStreamOptions(original, report)).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === "text-delta") onDelta();
    if (cancel && value.type === "text-delta") {
      await reader.cancel("client went away");
      break;
    }
  }
  return saved;
}

/** Reads a UI message stream made with the conversation's options (response ids named) to its end; the saved response. */
async function responseOf(
  conversation: Conversation,
  toStream: (
    options: ReturnType<Conversation["uiMessageStreamOptions"]> & { generateMessageId: () => string },
  ) => ReadableStream<unknown>,
  original: UIMessage[],
  id = "a1",
): Promise<UIMessage> {
  let response: UIMessage | undefined;
  const options = conversation.uiMessageStreamOptions(original);
  const reader = toStream({
    ...options,
    generateMessageId: () => id,
    onFinish: async (event) => {
      response = event.responseMessage;
      await options.onFinish(event);
    },
  }).getReader();
  while (!(await reader.read()).done) {}
  if (response === undefined) throw new Error("the stream finished without onFinish");
  return response;
}

/** A copy of `value` with every object's keys in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  );
}
