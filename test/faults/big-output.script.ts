/**
 * Run as its own process by hostile-input.test.ts: appends one tool output of argv[3] MB of ordinary words
 * to a new session of the store at argv[2], reads it back from a fresh runtime (log, resume view, OpenAI
 * export), and prints one JSON line: whether every copy was byte for byte, and the process's peak RSS.
 */
import { toOpenAIMessages } from "@palimpsest/projections";
import { openPalimpsest } from "@palimpsest/runtime";

const [url = "", megabytes = "1"] = process.argv.slice(2);
const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"];
const parts: string[] = [];
let length = 0;
for (let i = 0; length < Number(megabytes) * 1024 * 1024; i++) {
  const word = `${words[i % words.length]}${i % 97} `;
  parts.push(word);
  length += word.length;
}
const output = parts.join("");
parts.length = 0;

const writer = await openPalimpsest({ url });
const session = await writer.startSession({ model: "gpt-4o" });
await session.append([
  { id: "u", role: "user", content: "dump it" },
  { id: "a", role: "assistant", content: "", toolCalls: [{ id: "c", name: "dump", arguments: "{}" }] },
  { id: "t", role: "tool", toolCallId: "c", content: output },
]);
const tokens = session.state.live.at(-1)?.tokens ?? 0;
await writer.close();

const reader = await openPalimpsest({ url });
const textOf = (content: unknown): string =>
  typeof content === "string" ? content : ((content as { text?: string }[])[0]?.text ?? "");
const logged = (await reader.store.readStream(session.id)).find(
  (e) => e.type === "message.appended" && e.data.message.id === "t",
);
const resumed = await reader.resume(session.id);
const inView = resumed.view().messages.find((m) => m.id === "t");
const exported = toOpenAIMessages(resumed.view().messages).at(-1);
const exact = {
  log: logged?.type === "message.appended" && textOf(logged.data.message.content) === output,
  view: inView !== undefined && textOf(inView.content) === output,
  export: exported !== undefined && textOf(exported.content) === output,
};
await reader.close();
// maxRSS is in kilobytes.
const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify({ bytes: output.length, tokens, exact, peakRssMb })}\n`);
