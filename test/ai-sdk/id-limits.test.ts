/**
 * The ids a conversation takes from its caller (a part's toolCallId, the session id) have Palimpsest's
 * limits (ID_LIMITS), the same on both engines: at the limit they are stored and loaded back as given and
 * generateText accepts the load; one code unit over they are VALIDATION naming the field, nothing written.
 */
import { type Conversation, openConversation } from "@palimpsest/ai-sdk";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { idAtLimit, idOverLimit } from "../support/limit-ids.ts";
import { rejection } from "../support/rejection.ts";
import { type ConversationBackend, postgresConversations, sqliteConversations } from "./conversation-backends.ts";
import { expectAccepted, expectValidRequests } from "./request-checks.ts";
import { call, result, scriptedModel, text } from "./scripted-model.ts";
import { weatherTool } from "./tools.ts";

/** An assistant message calling `weather` with `toolCallId`, and the tool message answering it. */
function exchange(toolCallId: string): ModelMessage[] {
  return [
    { role: "assistant", content: [{ type: "tool-call", toolCallId, toolName: "weather", input: { city: "Oslo" } }] },
    {
      role: "tool",
      content: [{ type: "tool-result", toolCallId, toolName: "weather", output: { type: "text", value: "sunny" } }],
    },
  ];
}

for (const backend of [sqliteConversations, postgresConversations()] as ConversationBackend[]) {
  describe.skipIf(backend.skip !== undefined)(`id limits of a conversation (${backend.name})`, () => {
    let cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
      cleanups = [];
    });
    async function database() {
      const { url, drop } = await backend.create();
      cleanups.push(drop);
      return async (options: Parameters<typeof openConversation>[0] = {}): Promise<Conversation> => {
        const conversation = await openConversation({ url, ...options });
        cleanups.push(() => conversation.close());
        return conversation;
      };
    }

    it("stores a session id and tool call ids at their limits, from save and from generateText", async () => {
      const open = await database();
      const sessionId = idAtLimit("session", "bmp", 21);
      const conversation = await open({ sessionId });
      expect(conversation.sessionId).toBe(sessionId);
      const saved: ModelMessage[] = [
        { role: "user", content: "Weather?" },
        ...exchange(idAtLimit("toolCall", "astral", 22)),
      ];
      await conversation.save(saved);
      const modelCallId = idAtLimit("toolCall", "bmp", 23);
      const model = scriptedModel([result([call(modelCallId, "weather", { city: "Rome" })]), result([text("Sunny.")])]);
      const answer = await generateText({
        model,
        tools: { weather: weatherTool() },
        ...(await conversation.load()),
        stopWhen: stepCountIs(5),
      });
      await conversation.saveResponse(answer);
      expectValidRequests(model);
      const loaded = await (await open({ sessionId })).load();
      expect(loaded.messages).toEqual([...saved, ...answer.responseMessages]);
      expect(conversation.session.view().messages.flatMap((m) => m.toolCalls?.map((c) => c.id) ?? [])).toContain(
        modelCallId,
      );
      await expectAccepted(loaded);
    });

    it("refuses ids one code unit over their limits with VALIDATION naming the field, writing nothing", async () => {
      const open = await database();
      const conversation = await open();
      await conversation.save([{ role: "user", content: "Weather?" }, ...exchange("c1")]);
      const stored = await conversation.load();
      const over = idOverLimit("toolCall", "bmp", 24);
      const [calling, answering] = exchange(over);
      for (const [messages, path] of [
        [[calling], "messages[0].content[0].toolCallId"],
        [[{ role: "user", content: "again" }, calling, answering], "messages[1].content[0].toolCallId"],
        [[answering], "messages[0].content[0].toolCallId"],
      ] as [ModelMessage[], string][]) {
        const error = await rejection(conversation.save(messages));
        expect({ code: error.code, path: (error.details as { path?: string }).path }).toEqual({
          code: "VALIDATION",
          path,
        });
      }
      const model = scriptedModel([result([call(over, "weather", { city: "Rome" })]), result([text("Sunny.")])]);
      const answer = await generateText({
        model,
        tools: { weather: weatherTool() },
        ...stored,
        stopWhen: stepCountIs(5),
      });
      const error = await rejection(conversation.saveResponse(answer));
      expect({ code: error.code, path: (error.details as { path?: string }).path }).toEqual({
        code: "VALIDATION",
        path: "responseMessages[0].content[0].toolCallId",
      });
      expect(await (await open({ sessionId: conversation.sessionId })).load()).toEqual(stored);
      const other = await backend.create();
      cleanups.push(other.drop);
      const tooLong = await rejection(
        openConversation({ url: other.url, sessionId: idOverLimit("session", "astral", 25) }),
      );
      expect({ code: tooLong.code, path: (tooLong.details as { path?: string }).path }).toEqual({
        code: "VALIDATION",
        path: "sessionId",
      });
    });
  });
}
