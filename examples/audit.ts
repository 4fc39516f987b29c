/** Audit questions across sessions, answered in SQL from the read models kept beside the log. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuditReadModels, compact, openEventStore, openPalimpsest } from "palimpsest";
import { runTurns } from "./workload.ts";

const url = join(mkdtempSync(join(tmpdir(), "palimpsest-")), "audit.db"); // or postgres://…
const palimpsest = await openPalimpsest({ url });
const session = await palimpsest.startSession({ contextWindow: 64_000 });
await runTurns(session, 0, 8);
const secondTool = session.view().messages[6]?.id ?? ""; // the second turn's tool output
await compact(session, { policy: "summary", profile: "local", force: true }); // one manual compaction
const handedOff = await palimpsest.handOff(session); // a successor, linked back to the session
await palimpsest.close();

const store = await openEventStore(url);
const audit = new AuditReadModels(store);
const [compaction] = await audit.compactions({ since: "2026-01-01", mode: "summary" }); // newest first
const totals = await audit.compactionTotals({ trigger: "manual" }, ["day", "policy"]); // count, tokens reclaimed, …
await audit.failureTotals({}, ["reason"]); // failed attempts by class (timeout, auth, rate-limited, …)
const trail = await audit.message(secondTool); // which compaction superseded it and what replaced it
await audit.compaction(compaction?.compactionId ?? ""); // what a compaction took out and put in
const lineage = await audit.lineage(session.id); // ancestors, descendants and the tip of the hand-off chain
await audit.lineageTrees(); // every root with its tree's size, depth and hand-off tip
const before = await audit.viewAsOf(session.id, { turn: 7 }); // the view at the end of turn 7 (or { seq }, { time })
const check = await audit.rebuild({ checkOnly: true }); // rebuild from the log and compare with the live models

console.log(`reclaimed ${totals[0]?.tokensReclaimed} tokens in ${totals[0]?.compactions} compaction(s)`);
console.log(
  `second tool output superseded by it: ${trail[0]?.supersededBy?.compaction.compactionId === compaction?.compactionId}`,
);
console.log(
  `tip ${lineage.tip === handedOff.id}, ${before.view.messages.length} messages before, equal ${check.equal}`,
);
await store.close();
