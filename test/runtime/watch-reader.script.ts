/**
 * Run as its own process by watch-events.test.ts: watches session argv[3] of the store at argv[2], prints
 * "ready" once it has read seq 1, and after `count` events (argv[4]) unsubscribes, closes the store and
 * prints their seqs as JSON. The process must then exit by itself (no listener, timer or connection left).
 */
import { watchEvents } from "@palimpsest/projections/live";
import { openEventStore } from "@palimpsest/store";
import { firstValueFrom, take, tap, toArray } from "rxjs";

const [url = "", sessionId = "", count = "1"] = process.argv.slice(2);
const store = await openEventStore(url, { sqlitePollMs: 20 });
const events = await firstValueFrom(
  watchEvents(store, { sessionId }).pipe(
    tap((event) => {
      if (event.seq === 1) console.log("ready");
    }),
    take(Number(count)),
    toArray(),
  ),
);
await store.close();
console.log(JSON.stringify(events.map((e) => e.seq)));
