/** Live views: the log as rxjs Observables that catch up, then follow every commit (this process's and others'). */

import { openPalimpsest, type StoredEvent } from "palimpsest";
import { followEvents, watchEvents, watchView } from "palimpsest/live";
import { firstValueFrom, take, toArray } from "rxjs";

const palimpsest = await openPalimpsest({ url: ":memory:" });
const session = await palimpsest.startSession({ model: "gpt-4o" });
await session.append({ role: "user", content: "hello" }, { turnId: "t1" });

const store = palimpsest.store; // or openEventStore(url, { sqlitePollMs: 100 })
const views = firstValueFrom(watchView(store, session.id).pipe(take(2), toArray())); // the view now, then after each commit
const events = firstValueFrom(watchEvents(store, { sessionId: session.id, fromSeq: 2 }).pipe(take(2), toArray())); // events 2, 3, … then live
const checkpoint = await store.globalHead(); // where the global log ends now ("" is its start)
const later = firstValueFrom(watchEvents(store, { all: true, after: checkpoint }).pipe(take(1))); // every session's events from there

/** Your own projection of one event (here: remembered; resolves `allProjected` at the third). */
const projected: string[] = [];
let allProjected = () => {};
const projectedThree = new Promise<void>((resolve) => {
  allProjected = resolve;
});
async function project(event: StoredEvent): Promise<void> {
  projected.push(event.type);
  if (projected.length === 3) allProjected();
}

let saved = ""; // where to resume from after a restart (keep it beside your read model)
const following = followEvents(store, { all: true, after: saved }, async (page) => {
  for (const event of page) await project(event); // the next page is read once this settles
}).subscribe((p) => {
  if ("checkpoint" in p.position) saved = p.position.checkpoint; // { lastSeq } when following one session
});

await session.append({ role: "assistant", content: "hi" }, { turnId: "t1" });
const [before, after] = await views;
console.log(`views: ${before?.messages.length} then ${after?.messages.length} messages`);
console.log(`events: ${(await events).map((e) => `${e.seq}:${e.type}`).join(", ")}; global: ${(await later).type}`);
await projectedThree;
following.unsubscribe();
console.log(`followed ${projected.join(", ")}; saved a checkpoint: ${saved !== ""}`);
await palimpsest.close();
