/**
 * The OpenAI Agents SDK's own Runner calling PalimpsestAgentsSession.recallTools: a scripted model
 * (@openai/agents-core/testing) whose history was compacted calls `recall`, then `expand`; the function
 * call outputs the Runner feeds back hold the compacted originals, and a refused call reaches the model as
 * the tool's error message. SQLite and PostgreSQL.
 */
import { Agent, Runner } from "@openai/agents-core";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents-core/testing";
import { compactRange } from "@palimpsest/runtime";
import { describe, expect, it } from "vitest";
import { databases, engines } from "./engines.ts";

for (const engine of engines()) {
  describe.skipIf(engine.skip !== undefined)(`OpenAI Agents recall tools (${engine.name})`, () => {
    const fresh = databases(engine);

    /** A session whose first exchange (a failed build's output) was compacted away, and its compaction id. */
    async function compacted() {
      const session = await (await fresh()).open({ model: "gpt-4o" });
      await session.session.append([
        { id: "u1", role: "user", content: "build the release" },
        {
          id: "a1",
          role: "assistant",
          content: "",
          toolCalls: [{ id: "c1", name: "shell", arguments: '{"command":"cargo build --release"}' }],
        },
        { id: "t1", role: "tool", toolCallId: "c1", content: "error[E0432]: unresolved import `tokio::sync::Notify2`" },
        { id: "r1", role: "assistant", content: "The build failed on an import." },
        { id: "u2", role: "user", content: "ok" },
        { id: "r2", role: "assistant", content: "Waiting." },
      ]);
      const [compaction] = await compactRange(session.session, { fromId: "u1", toId: "r1", summary: "build failed" });
      return { session, compactionId: compaction?.type === "messages.superseded" ? compaction.data.compactionId : "" };
    }

    /** The text of the function call outputs the model was given in its `n`th call. */
    const outputsSeen = (model: ScriptedModel, n: number) =>
      JSON.stringify(
        ((model.calls[n]?.request.input ?? []) as { type?: string; output?: unknown }[]).filter(
          (item) => item.type === "function_call_result",
        ),
      );

    it("the Runner calls recall then expand, and the model is shown the compacted originals", async () => {
      const { session, compactionId } = await compacted();
      const model = new ScriptedModel([
        [functionCall("recall", { query: "E0432 unresolved import" }, { callId: "k1" })],
        [functionCall("expand", { compactionId }, { callId: "k2" })],
        [assistantMessage("The import tokio::sync::Notify2 does not exist.")],
      ]);
      const agent = new Agent({ name: "builder", model, tools: session.recallTools({ maxTokens: 600 }) });
      const result = await new Runner().run(agent, "what broke the build?", { session });
      expect(result.finalOutput).toBe("The import tokio::sync::Notify2 does not exist.");
      const afterRecall = outputsSeen(model, 1);
      expect(afterRecall).toContain("unresolved import `tokio::sync::Notify2`");
      expect(afterRecall).toContain(`compacted by ${compactionId}`);
      const afterExpand = outputsSeen(model, 2);
      expect(afterExpand).toContain(`Compaction ${compactionId} replaced these messages:`);
      expect(afterExpand).toContain("cargo build --release");
      const tools = model.calls[0]?.request.tools?.map((t) => t.name).sort();
      expect(tools).toEqual(["expand", "recall"]);
    });

    it("a refused call reaches the model as the tool's error message, and the run goes on", async () => {
      const { session } = await compacted();
      const model = new ScriptedModel([
        [functionCall("expand", { compactionId: "no-such-compaction" }, { callId: "k1" })],
        [assistantMessage("Not found.")],
      ]);
      const agent = new Agent({ name: "builder", model, tools: session.recallTools() });
      const result = await new Runner().run(agent, "expand it", { session });
      expect(result.finalOutput).toBe("Not found.");
      expect(outputsSeen(model, 1)).toContain("NOT_FOUND: ");
      expect(outputsSeen(model, 1)).toContain("no-such-compaction");
    });

    it("an argument the tool does not take is refused by name, not dropped", async () => {
      const { session } = await compacted();
      const model = new ScriptedModel([
        [functionCall("recall", { query: "cargo", limt: 1 }, { callId: "k1" })],
        [assistantMessage("Misspelt.")],
      ]);
      const agent = new Agent({ name: "builder", model, tools: session.recallTools() });
      const result = await new Runner().run(agent, "recall it", { session });
      expect(result.finalOutput).toBe("Misspelt.");
      expect(outputsSeen(model, 1)).toContain("unknown argument limt (it takes query, limit, offset)");
    });
  });
}
