/**
 * The AI SDK's own tool loop calling Conversation.recallTools: a scripted model (ai/test) whose history
 * was compacted calls `recall`, then `expand`, in a real generateText run; each result the SDK feeds back
 * to the model holds the original text the compaction took out of its prompt, and a refused call comes
 * back to the model as the tool's error. SQLite and PostgreSQL.
 */
import { type Conversation, openConversation } from "@palimpsest/ai-sdk";
import { compactRange } from "@palimpsest/runtime";
import { generateText, stepCountIs } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { type ConversationBackend, postgresConversations, sqliteConversations } from "./conversation-backends.ts";
import { call, result, scriptedModel, text } from "./scripted-model.ts";

/** The text of every tool result (or tool error) the model was shown in its last call. */
function toolOutputs(prompt: readonly { role: string; content: unknown }[]): string {
  return JSON.stringify(prompt.filter((m) => m.role === "tool").map((m) => m.content));
}

for (const backend of [sqliteConversations, postgresConversations()] as ConversationBackend[]) {
  describe.skipIf(backend.skip !== undefined)(`AI SDK recall tools (${backend.name})`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    /** A conversation whose first exchange (an error the tool printed) was compacted away. */
    async function compacted(): Promise<{ conversation: Conversation; compactionId: string }> {
      const { url, drop } = await backend.create();
      cleanups.push(drop);
      const conversation = await openConversation({ url, model: "gpt-4o" });
      cleanups.push(() => conversation.close());
      await conversation.session.append([
        { id: "u1", role: "user", content: "deploy the api" },
        {
          id: "a1",
          role: "assistant",
          content: "",
          toolCalls: [{ id: "c1", name: "shell", arguments: '{"command":"kubectl apply -f api.yaml"}' }],
        },
        { id: "t1", role: "tool", toolCallId: "c1", content: "error: ImagePullBackOff for registry.example/api:7.3.1" },
        { id: "r1", role: "assistant", content: "The image could not be pulled." },
        { id: "u2", role: "user", content: "what else is there to do" },
        { id: "r2", role: "assistant", content: "Nothing for now." },
      ]);
      const [compaction] = await compactRange(conversation.session, {
        fromId: "u1",
        toId: "r1",
        summary: "deploy failed",
      });
      return {
        conversation,
        compactionId: compaction?.type === "messages.superseded" ? compaction.data.compactionId : "",
      };
    }

    it("the model calls recall then expand in a tool loop, and is shown the compacted originals", async () => {
      const { conversation, compactionId } = await compacted();
      await conversation.save([{ role: "user", content: "which image tag failed earlier?" }]);
      const loaded = await conversation.load();
      expect(JSON.stringify(loaded.messages)).not.toContain("ImagePullBackOff"); // compacted out of the prompt
      const model = scriptedModel([
        result([call("k1", "recall", { query: "ImagePullBackOff image" })]),
        result([call("k2", "expand", { compactionId })]),
        result([text("Tag 7.3.1.")]),
      ]);
      const answer = await generateText({
        model,
        tools: conversation.recallTools({ maxTokens: 600 }),
        ...loaded,
        stopWhen: stepCountIs(4),
      });
      expect(answer.text).toBe("Tag 7.3.1.");
      const afterRecall = toolOutputs(model.doGenerateCalls[1]?.prompt ?? []);
      expect(afterRecall).toContain("ImagePullBackOff for registry.example/api:7.3.1");
      expect(afterRecall).toContain(`compacted by ${compactionId}`);
      const afterExpand = toolOutputs(model.doGenerateCalls[2]?.prompt ?? []);
      expect(afterExpand).toContain(`Compaction ${compactionId} replaced these messages:`);
      expect(afterExpand).toContain("kubectl apply -f api.yaml");
      await conversation.saveResponse(answer);
      expect((await conversation.load()).messages.at(-1)).toMatchObject({ role: "assistant" });
    });

    it("a refused call reaches the model as the tool's error, and the loop goes on", async () => {
      const { conversation } = await compacted();
      const model = scriptedModel([
        result([call("k1", "expand", { compactionId: "no-such-compaction" })]),
        result([text("I could not find it.")]),
      ]);
      const answer = await generateText({
        model,
        tools: conversation.recallTools(),
        prompt: "expand it",
        stopWhen: stepCountIs(3),
      });
      expect(answer.text).toBe("I could not find it.");
      const shown = toolOutputs(model.doGenerateCalls[1]?.prompt ?? []);
      expect(shown).toContain("no-such-compaction");
      expect(shown).toMatch(/error/i);
    });
  });
}
