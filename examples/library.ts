/**
 * Sessions, tool calls, a compaction and a resume, on an in-memory store (or pass a database URL as the
 * first argument): `npx tsx examples/library.ts`.
 */
import { compactRange, openPalimpsest, toAnthropicRequest, toOpenAIMessages } from "palimpsest";

const palimpsest = await openPalimpsest({ url: process.argv[2] ?? ":memory:" });
const session = await palimpsest.startSession({ model: "gpt-4o", contextWindow: 128_000 });

await session.append({ role: "user", content: "List the files" }, { turnId: "t1" });
await session.append(
  [
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "ls", arguments: "{}" }] },
    { role: "tool", toolCallId: "c1", content: "README.md\nsrc/" },
    { role: "assistant", content: "Two entries: README.md and src/." },
  ],
  { turnId: "t1" },
);
await session.completeTurn("t1", { promptTokens: 812, completionTokens: 40 });

const view = session.view(); // the live messages, in order
const openai = toOpenAIMessages(view.messages); // an OpenAI chat `messages` array
const anthropic = toAnthropicRequest(view.messages); // { system?, messages } for Anthropic
console.log(`${view.messages.length} live messages, ${session.state.liveTokens} tokens`);
console.log(JSON.stringify(openai[1]), anthropic.messages.length);

// One compaction is one supersede event: the tool call and its result leave the view, a summary takes
// their place, and the originals stay in the log.
const [call, result] = view.messages.slice(1);
if (call === undefined || result === undefined) throw new Error("expected the tool call and its result");
await compactRange(session, { fromId: call.id, toId: result.id, summary: "Listed the files: README.md, src/." });

const [compaction] = await session.history(); // what was compacted, how, tokens before → after
if (compaction === undefined) throw new Error("expected one compaction");
const originals = await session.expand(compaction.compactionId); // the exact messages it replaced
const resumed = await palimpsest.resume(session.id); // what another process loads: the same view
console.log(`${resumed.view().messages.length} live messages after compaction; ${originals.length} originals`);
await palimpsest.close();
