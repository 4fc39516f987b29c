/** The README's first program: an embedded SQLite store in ./.palimpsest/, one turn, the prompt for the next call. */
import { openPalimpsest, toOpenAIMessages } from "palimpsest";

const palimpsest = await openPalimpsest(); // ./.palimpsest/palimpsest.db, created on first use
const session = await palimpsest.startSession({ model: "gpt-4o", contextWindow: 128_000 });
await session.append({ role: "user", content: "What is a palimpsest?" }, { turnId: "t1" });
await session.append({ role: "assistant", content: "A page written over, the old text legible." }, { turnId: "t1" });
await session.completeTurn("t1", { promptTokens: 21, completionTokens: 12 });

const messages = toOpenAIMessages(session.view().messages); // the next request's `messages`
console.log(JSON.stringify(messages), `live tokens: ${session.state.liveTokens}`);
await palimpsest.close();
