/**
 * An AI SDK app's compaction summarized by its own model, reading the conversation from the provider's
 * prompt cache: AiSdkSummarizer sends the agent's last call again with the summary instruction after it.
 * Runs with the AI SDK's mock model: `npx tsx examples/ai-sdk-summarizer.ts`.
 */
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { SUMMARY_SECTIONS } from "palimpsest";
import { AiSdkSummarizer, openConversation } from "palimpsest/ai-sdk";
import { z } from "zod";

const url = ":memory:"; // or a SQLite file, or postgres://…

/** A scripted model: as the agent it calls the weather tool, then answers; asked for a summary, it writes one. */
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const asked = JSON.stringify(prompt.at(-1)?.content).includes("[SUMMARY REQUEST]");
    const answered = prompt.at(-1)?.role === "tool";
    const summary = SUMMARY_SECTIONS.map((title) => `## ${title}\nNone`).join("\n\n");
    const content = asked
      ? [{ type: "text" as const, text: summary }]
      : answered
        ? [{ type: "text" as const, text: "Sunny, 21°C." }]
        : [{ type: "tool-call" as const, toolCallId: `call-${prompt.length}`, toolName: "weather", input: "{}" }];
    return {
      content,
      finishReason: { unified: asked || answered ? ("stop" as const) : ("tool-calls" as const), raw: undefined },
      usage: {
        inputTokens: { total: 2_000, noCache: 50, cacheRead: asked ? 1_950 : 0, cacheWrite: asked ? 0 : 1_950 },
        outputTokens: { total: 40, text: 40, reasoning: 0 },
      },
      warnings: [],
    };
  },
});
const weather = tool({
  description: "the weather in a city",
  inputSchema: z.object({}),
  execute: async () => `Sunny, 21°C. ${"Clear skies over the fjord. ".repeat(60)}`,
});

const tools = { weather };
const summarizer = new AiSdkSummarizer({ model, conversation: { anthropicCache: true, tools } });
const conversation = await openConversation({
  url,
  anthropicCache: true,
  contextWindow: 4_000,
  compaction: { policy: "summary", summarizer }, // or "cost-optimal": it then prices the reading at the cache's read price
});

for (let turn = 1; turn <= 8 && conversation.session.view().lastSummaryId === undefined; turn++) {
  await conversation.save([{ role: "user", content: `Turn ${turn}: the weather in Oslo?` }]);
  const result = await generateText({
    model,
    tools,
    ...(await conversation.load()),
    stopWhen: stepCountIs(5),
    prepareStep: conversation.prepareStep,
  });
  await conversation.saveResponse(result); // compacts once the view is over its threshold
}

// The summary call, and the agent's call before it: the last one whose prompt the provider has cached.
const calls = model.doGenerateCalls;
const at = calls.findIndex((c) => JSON.stringify(c.prompt.at(-1)?.content).includes("[SUMMARY REQUEST]"));
const [agentLast, sent] = [calls[at - 1], calls[at]];
const same = JSON.stringify(sent?.prompt.slice(0, -1)) === JSON.stringify(agentLast?.prompt);
const sameTools = JSON.stringify(sent?.tools) === JSON.stringify(agentLast?.tools);
console.log(`summarizer call: the agent's last call first: ${same}, its tools: ${sameTools}`);
console.log(`instruction: ${JSON.stringify(sent?.prompt.at(-1)?.content).slice(0, 60)}`);
console.log(`compactions: ${(await conversation.session.history()).map((c) => c.mode).join(", ")}`);
await conversation.close();
