/**
 * Run as its own process by postgres-change-feed.test.ts: two stores on the database at argv[2], a
 * subscriber on one hearing an append through the other, then close(). The process must then exit by
 * itself (no listener connection or timer left open); it prints the change it heard.
 */
import type { StoreChange } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import { until, untilHeard } from "./change-feed-probe.ts";
import { started } from "./fixtures.ts";

const url = process.argv[2] ?? "";
const a = await openEventStore(url);
const b = await openEventStore(url);
const heard: StoreChange[] = [];
b.subscribe((change) => heard.push(change));
await untilHeard(a, b);
await a.append("exit-check", [started()], { expectedVersion: "no-stream" });
await until(() => heard.some((c) => c.sessionId === "exit-check"));
await Promise.all([a.close(), b.close()]);
console.log(JSON.stringify(heard.find((c) => c.sessionId === "exit-check")));
