/** Another process loading a conversation: `tsx load-child.script.ts <url> <sessionId>` prints it, normalized (every-part-kind.ts). */
import { openConversation } from "@palimpsest/ai-sdk";
import { normalized } from "./every-part-kind.ts";

const [url, sessionId] = process.argv.slice(2);
if (url === undefined || sessionId === undefined) throw new Error("usage: load-child.script.ts <url> <sessionId>");
const conversation = await openConversation({ url, sessionId });
console.log(JSON.stringify(normalized(await conversation.load())));
await conversation.close();
