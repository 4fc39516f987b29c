/**
 * The Vercel AI SDK on Palimpsest: a chat route handler that loads the conversation, streams the answer
 * (a tool loop) and saves it from onFinish; a UI message stream whose cancelled outcome is not stored;
 * compaction and a fork. Runs with the AI SDK's mock model: `npx tsx examples/ai-sdk.ts [url]`.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stepCountIs, streamText, tool, type UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { openPalimpsest } from "palimpsest";
import { openConversation, type UISaveOutcome } from "palimpsest/ai-sdk";
import { z } from "zod";

const url = process.argv[2] ?? join(mkdtempSync(join(tmpdir(), "palimpsest-ai-")), "chat.db"); // or postgres://…

/** A scripted model: it calls the weather tool for a new question, and answers once it has the result. */
const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const answered = prompt.at(-1)?.role === "tool";
    const usage = {
      inputTokens: { total: 50, noCache: 50, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 10, text: 10, reasoning: 0 },
    };
    const parts = answered
      ? ([
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Sunny, 21°C." },
          { type: "text-end", id: "t" },
        ] as const)
      : ([
          { type: "tool-call", toolCallId: `call-${prompt.length}`, toolName: "weather", input: '{"city":"Oslo"}' },
        ] as const);
    const finishReason = { unified: answered ? ("stop" as const) : ("tool-calls" as const), raw: undefined };
    const chunks = [
      { type: "stream-start" as const, warnings: [] },
      ...parts,
      { type: "finish", finishReason, usage } as const,
    ];
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    return { stream };
  },
});

const weather = tool({
  description: "The weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({
    city,
    hourly: Array.from({ length: 48 }, (_, h) => `${h % 24}:00 sunny ${15 + (h % 7)}°C, wind ${h % 5} m/s`),
  }),
});

/** POST /api/chat: the user's new message in, the answer streamed out; the history lives in Palimpsest. */
async function chat(sessionId: string | undefined, text: string): Promise<Response> {
  const conversation = await openConversation({ url, sessionId, contextWindow: 3_000 });
  await conversation.save([{ role: "user", content: text }]);
  const result = streamText({
    model,
    tools: { weather },
    ...(await conversation.load()), // { instructions?, messages }: the stored view, compacted
    stopWhen: stepCountIs(5),
    prepareStep: conversation.prepareStep, // compacts inside a long tool loop when the view is over its threshold
    onFinish: async (event) => {
      try {
        await conversation.saveResponse(event); // every step's messages, then compaction when over the threshold
      } finally {
        await conversation.close(); // closed even when the save fails
      }
    },
    onAbort: () => conversation.close(), // an aborted stream calls onAbort, not onFinish
  });
  return result.toTextStreamResponse({ headers: { "x-session-id": conversation.sessionId } });
}

const first = await chat(undefined, "Weather in Oslo?");
const sessionId = first.headers.get("x-session-id") ?? undefined;
console.log(`turn 1: ${await first.text()}`);
console.log(`turn 2: ${await (await chat(sessionId, "And tomorrow?")).text()}`);

/** A script (or a serverless function that returns the text): the answer is stored before it returns. */
async function ask(sessionId: string | undefined, question: string): Promise<string> {
  const conversation = await openConversation({ url, sessionId });
  await conversation.save([{ role: "user", content: question }]);
  const result = streamText({ model, tools: { weather }, ...(await conversation.load()), stopWhen: stepCountIs(5) });
  const text = await result.text; // resolves before streamText's onFinish has run, let alone saved
  await conversation.saveResponse(result); // awaits the result's response messages, then stores them
  await conversation.close();
  return text;
}

const reader = await openConversation({ url, sessionId });
const { messages } = await reader.load();
console.log(`${messages.length} messages: ${messages.map((m) => m.role).join(", ")}`);
await reader.close();
console.log(`turn 3: ${await ask(sessionId, "And the day after?")}`);

/** POST /api/ui-chat: useChat's messages in, a UI message stream out, stored only when it completed. */
async function uiChat(uiMessages: UIMessage[], onSaved: (outcome: UISaveOutcome) => void): Promise<Response> {
  const conversation = await openConversation({ url, sessionId });
  const user = uiMessages.at(-1);
  if (user !== undefined) await conversation.saveUIMessages([user]); // the new message; the rest is stored
  const result = streamText({ model, tools: { weather }, ...(await conversation.load()), stopWhen: stepCountIs(5) });
  return result.toUIMessageStreamResponse(
    conversation.uiMessageStreamOptions(uiMessages, async (outcome) => {
      await conversation.close();
      onSaved(outcome); // { saved: true }, or { saved: false, reason: "cancelled" } when the client went away
    }),
  );
}

/** A browser: reads the stream to its end, or goes away at the first tool call (`leave`); says what was saved. */
async function client(text: string, leave: boolean): Promise<UISaveOutcome> {
  let saved: (outcome: UISaveOutcome) => void = () => {};
  const outcome = new Promise<UISaveOutcome>((resolve) => {
    saved = resolve;
  });
  const response = await uiChat([{ id: randomUUID(), role: "user", parts: [{ type: "text", text }] }], saved);
  const body = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  for (let chunk = await body?.read(); chunk !== undefined && !chunk.done; chunk = await body?.read()) {
    if (leave && chunk.value.includes("tool-input-available")) await body?.cancel("the tab was closed");
  }
  return outcome;
}
console.log(`UI stream complete: ${JSON.stringify(await client("And in Bergen?", false))}`);
console.log(`UI stream cancelled: ${JSON.stringify(await client("And in Tromsø?", true))}`);

/** GET /api/ui-chat: the page reloads; `useChat({ messages })` gets the UI messages as they were shown. */
async function uiHistory(): Promise<UIMessage[]> {
  const conversation = await openConversation({ url, sessionId });
  const messages = await conversation.loadUIMessages(); // ids, metadata and every part, data parts included
  await conversation.close();
  return messages;
}
const page = await uiHistory();
console.log(`page reload: ${page.map((m) => `${m.role} (${m.parts.map((p) => p.type).join(" ")})`).join(", ")}`);

const conversation = await openConversation({ url, sessionId });
// Compaction ran on its own after the turn that left the view over the threshold of its 3,000-token
// window: one supersede event in the log; the originals stay one expand away, load() returns the new view.
const history = await conversation.session.history();
const runs = history.map((c) => `${c.trigger} ${c.mode} ${c.stats.tokensBefore} → ${c.stats.tokensAfter} tokens`);
const compacted = (await conversation.load()).messages;
const summarized = JSON.stringify(compacted).includes("CONTEXT SUMMARY");
console.log(`compactions: ${runs.join("; ")}; now ${compacted.length} messages, one a summary: ${summarized}`);

// A fork: the conversation as it stood after turn 1, continued on its own.
const branch = await conversation.fork({ atTurn: 1 });
console.log(
  `fork after turn 1: ${(await branch.load()).messages.length} messages, parent ${branch.session.state.started?.parent?.relation}`,
);

// Another vendor's session (a Claude Code import, a mirrored Agent SDK session) continues here after a
// portable hand-off: reasoning and metadata stay behind, the conversation renders the neutral messages.
const runtime = await openPalimpsest({ url });
const successor = await runtime.handOff(await runtime.resume(branch.sessionId), { portable: true });
const carried = await openConversation({ runtime, sessionId: successor.id });
console.log(
  `handed off: ${(await carried.load()).messages.length} messages, from the fork ${successor.state.started?.parent?.sessionId === branch.sessionId}`,
);
await runtime.close();
await conversation.close();
