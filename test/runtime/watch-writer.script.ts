/**
 * Run as its own process by watch-events.test.ts: appends events `from`..`to` (seq numbers) one append at
 * a time to session argv[3] of the store at argv[2] (seq 1 is the session's start), then closes the store.
 */
import { openEventStore } from "@palimpsest/store";
import { started, userMessage } from "../contract/fixtures.ts";

const [url = "", sessionId = "", from = "1", to = "1"] = process.argv.slice(2);
const store = await openEventStore(url);
for (let seq = Number(from); seq <= Number(to); seq++) {
  await store.append(sessionId, [seq === 1 ? started() : userMessage(`m${seq}`, `from the child ${seq}`)], {
    expectedVersion: seq - 1,
  });
}
await store.close();
