/** Testing an agent without a database: the runtime over the in-memory store; `npx tsx examples/memory-store.ts`. */
import { Palimpsest } from "palimpsest";
import { createMemoryStore } from "palimpsest/testing";
import { createTokenCounter } from "palimpsest/tokenizer";

// The store a test gives the runtime: same rules and errors as SQLite and PostgreSQL, no driver, no file.
const store = createMemoryStore();
const palimpsest = new Palimpsest({ store, counterFor: createTokenCounter });
const session = await palimpsest.startSession({ model: "gpt-4o" });
await session.append({ role: "user", content: "What changed in the build?" }, { turnId: "t1" });
await session.append({ role: "assistant", content: "The linker flags." }, { turnId: "t1" });
await session.completeTurn("t1", { promptTokens: 120, completionTokens: 8 });

// A second runtime on the same data stands for a restarted (or another) process.
const restarted = new Palimpsest({ store: store.connect(), counterFor: createTokenCounter });
const resumed = await restarted.resume(session.id);
console.log(
  `resumed ${resumed.view().messages.length} message(s); same view: ${JSON.stringify(resumed.view()) === JSON.stringify(session.view())}`,
);
await Promise.all([palimpsest.close(), restarted.close()]);
