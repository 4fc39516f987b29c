/**
 * A summarizer that reads the agent's own conversation from Anthropic's prompt cache: the agent's request
 * builder serves the summarizer too. A local stand-in for Anthropic's messages API answers here (no
 * network, no key): `npx tsx examples/conversation-summarizer.ts`.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { openPalimpsest, SUMMARY_SECTIONS, toAnthropicRequest } from "palimpsest";
import { AnthropicSummarizer, type ConversationInput } from "palimpsest/summarizers";

// The stand-in for api.anthropic.com: it keeps the requests and answers each with a summary in the sections.
const received: { messages: { role: string; content: { type: string; cache_control?: unknown }[] }[] }[] = [];
const summary = SUMMARY_SECTIONS.map((title) => `## ${title}\nNone`).join("\n\n");
const standIn = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => {
    body += chunk.toString("utf8");
  });
  req.on("end", () => {
    received.push(JSON.parse(body));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-6",
        content: [{ type: "text", text: summary }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 20, cache_read_input_tokens: 9_000, output_tokens: 60 },
      }),
    );
  });
});
await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
process.env.ANTHROPIC_BASE_URL = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
process.env.ANTHROPIC_API_KEY = "stand-in";

const tools = [{ name: "bash", description: "Runs a shell command", input_schema: { type: "object" as const } }];
/** The agent's request, and the summarizer's: one builder, so both send the same prompt (and its breakpoints). */
const agentRequest = (view: ConversationInput) => ({
  ...toAnthropicRequest(view.messages, { cache: { summaryId: view.lastSummaryId } }),
  tools,
});
const summarizer = new AnthropicSummarizer({
  model: "claude-sonnet-4-6", // the agent's model: no other model has this conversation in its cache
  conversation: { request: agentRequest },
});
const palimpsest = await openPalimpsest({ compaction: { auto: true, policy: "summary", summarizer } });

const session = await palimpsest.startSession({ model: "claude-sonnet-4-6", contextWindow: 16_000 });
await session.append({ role: "system", content: "You are a careful coding agent." });
let sent: ReturnType<typeof agentRequest> | undefined;
for (let n = 0; n < 12 && received.length === 0; n++) {
  const turnId = `turn-${n}`;
  await session.append({ role: "user", content: `Check module ${n}.` }, { turnId });
  const call = { id: `call-${n}`, name: "bash", arguments: JSON.stringify({ command: `npm test -- m${n}` }) };
  await session.append({ role: "assistant", content: "", toolCalls: [call] }, { turnId });
  await session.append({ role: "tool", toolCallId: call.id, content: `module ${n}: ok\n`.repeat(150) }, { turnId });
  sent = agentRequest(session.view()); // the agent's last request: the one its final reply answers
  await session.append({ role: "assistant", content: `Module ${n} passes.` }, { turnId });
  await session.completeTurn(turnId); // the automatic compaction runs here once it is due
}

// The summarizer's request is the agent's last one, the instruction one more block of its last (user) turn.
const [request] = received;
const last = request?.messages.at(-1)?.content ?? [];
const instruction = last.at(-1) as { text?: string } | undefined;
const asSent =
  JSON.stringify(request?.messages.slice(0, -1)) === JSON.stringify(sent?.messages.slice(0, -1)) &&
  JSON.stringify(last.slice(0, -1)) === JSON.stringify(sent?.messages.at(-1)?.content);
console.log(`summarizer request: the agent's last request first: ${asSent}`);
console.log(`instruction: ${instruction?.text?.split("\n")[0]?.slice(0, 60)}`);
console.log(`compactions: ${(await session.history()).map((c) => c.mode).join(", ")}`);
await palimpsest.close();
standIn.close();
