/**
 * A writer in its own process (`startScript("test/support/steady-writer.ts", [url, sessions])`): starts
 * `sessions` sessions of its own, prints `{ started: ids }`, then appends one user message at a time to
 * them in turn, through a runtime Session (which re-reads and decides again on contention itself), until its
 * stdin closes. Each append prints `{ stored, sessionId, at, ms }` (its id, its end on the wall clock, its
 * latency); an append that fails prints `{ error, message }`; the last line is `{ done }`.
 */
import { createInterface } from "node:readline";
import { isPalimpsestError } from "@palimpsest/core";
import { openPalimpsest } from "@palimpsest/runtime";

const [url = "", count = "1"] = process.argv.slice(2);
const runtime = await openPalimpsest({ url });
const sessions = [];
for (let i = 0; i < Number(count); i++) sessions.push(await runtime.startSession({ model: "gpt-4o" }));
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
print({ started: sessions.map((s) => s.id) });

let open = true;
createInterface({ input: process.stdin }).on("close", () => {
  open = false;
});
let n = 0;
while (open) {
  const session = sessions[n % sessions.length];
  if (session === undefined) break;
  const id = `w${n}`;
  const start = performance.now();
  try {
    await session.append({ id, role: "user", content: `steady write ${n}` });
    const end = performance.now();
    print({ stored: id, sessionId: session.id, at: performance.timeOrigin + end, ms: end - start });
  } catch (error) {
    print({ error: isPalimpsestError(error) ? error.code : "UNKNOWN", message: String(error) });
  }
  n++;
  // Yield to the event loop, so that stdin's close is heard between two appends.
  await new Promise((resolve) => setImmediate(resolve));
}
await runtime.close();
print({ done: n });
