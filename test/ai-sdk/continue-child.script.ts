/**
 * A second process continuing a conversation: `tsx continue-child.script.ts <url> <sessionId>` loads it,
 * prints what it loaded (one JSON line), asks a follow-up with a mock model that calls a tool once
 * more, saves the turn, and prints the request the model got (one JSON line).
 */
import { openConversation } from "@palimpsest/ai-sdk";
import { generateText, stepCountIs } from "ai";
import { call, result, scriptedModel, text } from "./scripted-model.ts";
import { weatherTool } from "./tools.ts";

const [url, sessionId] = process.argv.slice(2);
if (url === undefined || sessionId === undefined) throw new Error("usage: continue-child.script.ts <url> <sessionId>");
const conversation = await openConversation({ url, sessionId });
const loaded = await conversation.load();
console.log(JSON.stringify({ loaded }));
await conversation.save([{ role: "user", content: "And Paris?" }]);
const model = scriptedModel([
  result([call("c3", "weather", { city: "Paris" })]),
  result([text("Paris is sunny too.")]),
]);
const answer = await generateText({
  model,
  tools: { weather: weatherTool() },
  ...(await conversation.load()),
  stopWhen: stepCountIs(5),
  onFinish: (event) => conversation.saveResponse(event),
});
console.log(JSON.stringify({ text: answer.text, prompts: model.doGenerateCalls.map((c) => c.prompt) }));
await conversation.close();
