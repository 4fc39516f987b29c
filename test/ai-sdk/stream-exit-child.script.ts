/**
 * A script that returns right after its streamed answer, as a serverless handler does:
 * `tsx stream-exit-child.script.ts <url> <sessionId> <wait>` asks with streamText (a tool loop, saved from
 * onFinish), awaits `text`, then `conversation.saved()` when `<wait>` is `saved`, prints the text (one
 * JSON line) and exits at once (no close: the process is gone when the handler returns).
 */
import { openConversation } from "@palimpsest/ai-sdk";
import { stepCountIs, streamText } from "ai";
import { streamingToolModel } from "./scripted-model.ts";
import { weatherTool } from "./tools.ts";

const [url, sessionId, wait] = process.argv.slice(2);
if (url === undefined || sessionId === undefined) {
  throw new Error("usage: stream-exit-child.script.ts <url> <sessionId> <saved|none>");
}
const conversation = await openConversation({ url, sessionId });
await conversation.save([{ role: "user", content: "Weather in Oslo?" }]);
const result = streamText({
  model: streamingToolModel("weather", { city: "Oslo" }),
  tools: { weather: weatherTool() },
  ...(await conversation.load()),
  stopWhen: stepCountIs(5),
  onFinish: (event) => conversation.saveResponse(event),
});
const text = await result.text;
if (wait === "saved") await conversation.saved();
process.stdout.write(`${JSON.stringify({ text })}\n`);
process.exit(0);
