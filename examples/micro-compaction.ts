/** Per-turn micro-compaction: each completed turn folds the oldest exchange into one rolling-summary marker. */
import { openPalimpsest } from "palimpsest";
import { runTurns } from "./workload.ts";

const palimpsest = await openPalimpsest({
  url: ":memory:",
  compaction: { micro: {}, profile: "local" }, // settings: everyNTurns, defragLimitTokens, maxAttempts
});

const session = await palimpsest.startSession({ contextWindow: 64_000 });
const optedOut = await palimpsest.startSession({ contextWindow: 64_000, settings: { microCompact: false } });
await runTurns(session, 0, 12, 1_000);
await runTurns(optedOut, 0, 12, 1_000);

const modes = (await session.history()).map((c) => c.mode);
console.log(`micro passes: ${modes.filter((m) => m === "micro").length}, live markers: ${session.state.liveSummaries}`);
console.log(`opted-out session compactions: ${(await optedOut.history()).length}`);
await palimpsest.close();
