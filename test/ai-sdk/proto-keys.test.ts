/**
 * Own `__proto__` keys in ModelMessages (providerOptions of a message and of its parts, and values nested
 * in them, as JSON.parse makes them) are kept byte for byte through save, saveResponse, the log and load()
 * in another process, and the loaded messages are a request generateText accepts. Nothing reaches
 * Object.prototype.
 */
import { type Conversation, openConversation } from "@palimpsest/ai-sdk";
import { generateText, type ModelMessage, modelMessageSchema, stepCountIs } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { type ConversationBackend, postgresConversations, sqliteConversations } from "./conversation-backends.ts";
import { expectAccepted } from "./request-checks.ts";
import { call, result, scriptedModel } from "./scripted-model.ts";
import { weatherTool } from "./tools.ts";

/** A conversation's messages whose providerOptions hold own `__proto__` keys, as JSON text. */
const MESSAGES_JSON = JSON.stringify([
  {
    role: "user",
    content: [
      {
        type: "text",
        text: "Weather in Oslo?",
        providerOptions: { PROTO: { polluted: "part" }, openai: { PROTO: [1] } },
      },
    ],
    providerOptions: { PROTO: { polluted: "message" } },
  },
  {
    role: "assistant",
    content: [
      {
        type: "tool-call",
        toolCallId: "c1",
        toolName: "weather",
        input: { city: "Oslo" },
        providerOptions: { PROTO: { polluted: "call" } },
      },
    ],
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "weather",
        output: { type: "json", value: { sky: "sunny", PROTO: { polluted: "output" } } },
        providerOptions: { PROTO: { polluted: "result" } },
      },
    ],
    providerOptions: { PROTO: { polluted: "tool message" } },
  },
  {
    role: "assistant",
    content: [{ type: "text", text: "Sunny.", providerOptions: { PROTO: { polluted: "answer" } } }],
  },
]).replaceAll('"PROTO"', '"__proto__"');

/** True when nothing was added to Object.prototype. */
function prototypeClean(): boolean {
  const probe: Record<string, unknown> = {};
  return probe.polluted === undefined && !Object.getOwnPropertyNames(Object.prototype).includes("polluted");
}

for (const backend of [sqliteConversations, postgresConversations()] as ConversationBackend[]) {
  describe.skipIf(backend.skip !== undefined)(`own __proto__ keys in ModelMessages (${backend.name})`, () => {
    let cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
      cleanups = [];
      expect(prototypeClean()).toBe(true);
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

    it("keeps them through save, the log and load() in another process, byte for byte", async () => {
      const messages = JSON.parse(MESSAGES_JSON) as ModelMessage[];
      for (const message of messages) expect(modelMessageSchema.safeParse(message).success).toBe(true);
      const open = await database();
      const conversation = await open();
      await conversation.save(messages);
      expect(JSON.stringify((await conversation.load()).messages)).toBe(MESSAGES_JSON);
      const loaded = (await (await open({ sessionId: conversation.sessionId })).load()).messages;
      expect(JSON.stringify(loaded)).toBe(MESSAGES_JSON);
      const [question] = loaded as { providerOptions: object; content: { providerOptions: object }[] }[];
      expect(Object.hasOwn(question?.providerOptions ?? {}, "__proto__")).toBe(true);
      expect(Object.hasOwn(question?.content[0]?.providerOptions ?? {}, "__proto__")).toBe(true);
      expect(Object.getPrototypeOf(question?.providerOptions)).toBe(Object.prototype);
      await expectAccepted({ messages: loaded });
    });

    it("keeps them in a response generateText made from a model's provider metadata", async () => {
      const open = await database();
      const conversation = await open();
      await conversation.save([{ role: "user", content: "Weather in Oslo?" }]);
      const providerMetadata = JSON.parse('{"openai":{"__proto__":{"polluted":"metadata"},"itemId":"fc_1"}}');
      const model = scriptedModel([
        result([{ ...call("c1", "weather", { city: "Oslo" }), providerMetadata }]),
        result([{ type: "text", text: "Sunny.", providerMetadata }]),
      ]);
      const answer = await generateText({
        model,
        tools: { weather: weatherTool() },
        ...(await conversation.load()),
        stopWhen: stepCountIs(5),
      });
      await conversation.saveResponse(answer);
      const saved = JSON.stringify([{ role: "user", content: "Weather in Oslo?" }, ...answer.responseMessages]);
      expect(saved).toContain('"providerOptions":{"openai":{"__proto__":{"polluted":"metadata"},"itemId":"fc_1"}}');
      const loaded = (await (await open({ sessionId: conversation.sessionId })).load()).messages;
      expect(JSON.stringify(loaded)).toBe(saved);
    });
  });
}
