/**
 * Another process loading a conversation: `tsx load-child.script.ts <url> <sessionId> [ui]` prints it,
 * normalized (every-part-kind.ts), or with `ui` its UI messages (loadUIMessages), as one JSON line.
 */
import { openConversation } from "@palimpsest/ai-sdk";
import { normalized } from "./every-part-kind.ts";

const [url, sessionId, what] = process.argv.slice(2);
if (url === undefined || sessionId === undefined) throw new Error("usage: load-child.script.ts <url> <sessionId> [ui]");
const conversation = await openConversation({ url, sessionId });
const loaded = what === "ui" ? await conversation.loadUIMessages() : normalized(await conversation.load());
console.log(JSON.stringify(loaded));
await conversation.close();
