/**
 * The README's library example, runnable: `pnpm tsx examples/library.ts` (an in-memory store by default,
 * or pass a database URL as the first argument).
 */
import { toOpenAIMessages } from "@palimpsest/projections";
import { compactRange, openPalimpsest } from "@palimpsest/store";

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

const view = session.view(); // live messages + running token total (no re-tokenizing)
const request = toOpenAIMessages(view.messages);
console.log(`${view.messages.length} live messages, ${session.state.liveTokens} tokens`);
console.log(JSON.stringify(request[1]));

// Compact the tool call and its result into one summary: one supersede event, the originals stay in the
// log (the last user message and reply always stay verbatim).
const [first, last] = view.messages.slice(1);
if (first !== undefined && last !== undefined) {
  await compactRange(session, { fromId: first.id, toId: last.id, summary: "Listed the files: README.md, src/." });
}
const resumed = await palimpsest.resume(session.id); // what another process would load
console.log(`${resumed.view().messages.length} live messages after compaction; history:`, await resumed.history());
await palimpsest.close();
