/** Recall: get back the exact text a compaction took out of the view; `npx tsx examples/recall.ts`. */
import { compactRange, openPalimpsest, recallTools } from "palimpsest";

const palimpsest = await openPalimpsest({ url: ":memory:" });
const started = await palimpsest.startSession({ model: "gpt-4o" });
await started.append([
  { id: "u1", role: "user", content: "Why does the login test fail?" },
  {
    id: "a1",
    role: "assistant",
    content: "Running it.",
    toolCalls: [{ id: "c1", name: "shell", arguments: '{"command":"pnpm test login"}' }],
  },
  { id: "t1", role: "tool", toolCallId: "c1", content: "FAIL login.test.ts: TimeoutError after 30000 ms" },
  { id: "r1", role: "assistant", content: "It times out." },
  { id: "u2", role: "user", content: "Fix it, then update the docs." },
  { id: "r2", role: "assistant", content: "Fixed, and the docs say why." },
]);
await compactRange(started, { fromId: "u1", toId: "r1", summary: "The login test timed out." });
const id = started.id;

const session = await palimpsest.resume(id);
const found = await session.recall("TimeoutError login test", { limit: 5 });
for (const m of found.messages) {
  console.log(m.seq, m.message.role, m.supersededBy ?? "in view", m.snippet);
}
// found.nextOffset: pass it as { offset } for the next page (null when there is none)

// The same search as a tool for the agent (wrap it with your SDK's tool helper, or serve it with `palimpsest mcp`).
const [recall] = recallTools(() => palimpsest.resume(id), { maxTokens: 500 });
console.log(await recall.call({ query: "TimeoutError" }));
await palimpsest.close();
