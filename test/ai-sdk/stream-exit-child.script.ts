/**
 * A script that returns right after its streamed answer, as a serverless handler does:
 * `tsx stream-exit-child.script.ts <url> <sessionId> <how>` asks with streamText (a tool loop) and awaits
 * `text`; `onFinish` saves the response (`conversation.onFinish`) and the script awaits
 * `conversation.saved()` (`saved`) or does not (`none`, the control: `text` resolves a few microtasks
 * after onFinish started the save, which needs many more, and I/O on PostgreSQL, so the exit always
 * comes first), or it awaits `conversation.saveResponse(result)` itself, with a structured output, which
 * resolves `text` before onFinish runs (`result`). Then it prints the text (one JSON line) and exits at
 * once (no close: the process is gone when the handler returns).
 */
import { openConversation } from "@palimpsest/ai-sdk";
import { Output, stepCountIs, streamText } from "ai";
import { streamingToolModel } from "./scripted-model.ts";
import { weatherTool } from "./tools.ts";

const [url, sessionId, how] = process.argv.slice(2);
if (url === undefined || sessionId === undefined) {
  throw new Error("usage: stream-exit-child.script.ts <url> <sessionId> <saved|result|none>");
}
const conversation = await openConversation({ url, sessionId });
await conversation.save([{ role: "user", content: "Weather in Oslo?" }]);
const request = {
  model: streamingToolModel("weather", { city: "Oslo" }),
  tools: { weather: weatherTool() },
  ...(await conversation.load()),
  stopWhen: stepCountIs(5),
};
if (how === "result") {
  const result = streamText({ ...request, output: Output.text() });
  const text = await result.text;
  await conversation.saveResponse(result);
  process.stdout.write(`${JSON.stringify({ text })}\n`);
} else {
  const result = streamText({ ...request, onFinish: conversation.onFinish });
  const text = await result.text;
  if (how === "saved") await conversation.saved();
  process.stdout.write(`${JSON.stringify({ text })}\n`);
}
process.exit(0);
