/** Forks and rewrites: branch a session at a turn, withdraw a message, replace the last reply; `npx tsx examples/fork-and-rewrite.ts`. */
import { openPalimpsest } from "palimpsest";

const palimpsest = await openPalimpsest({ url: ":memory:" });
const session = await palimpsest.startSession({ model: "gpt-4o" });
await session.append([
  { role: "user", content: "Name a prime" },
  { role: "assistant", content: "7" },
  { role: "user", content: "Another one" },
  { role: "assistant", content: "11" },
]);

// A fork starts with the view as it stood after turn 1; from then on the two are independent.
const fork = await palimpsest.fork(session.id, { atTurn: 1 });
await fork.append({ role: "user", content: "An even one" }); // the edited second question
console.log(`fork: ${fork.view().messages.length} messages, parent ${fork.state.started?.parent?.relation}`);

// A rewrite withdraws messages (kept in the log, one expand away) and appends in the same batch.
const last = session.view().messages.at(-1);
if (last === undefined) throw new Error("expected a reply");
await session.rewrite({ mode: "retract", targets: [last.id], append: [{ role: "assistant", content: "13" }] });
const [retraction] = await session.history();
console.log(`parent: last reply ${JSON.stringify(session.view().messages.at(-1)?.content)}, ${retraction?.mode}`);
await palimpsest.close();
