/** Background pre-compaction: the stable prefix is summarized ahead of time, the threshold commits the delta. */
import { openPalimpsest } from "palimpsest";
import { runTurns } from "./workload.ts";

const palimpsest = await openPalimpsest({
  url: ":memory:",
  compaction: { auto: true, policy: "summary", profile: "local" },
  precompact: { debounceMs: 0 }, // {} for the defaults: soft threshold 65%, 2 s debounce, 2 jobs at once
});

const session = await palimpsest.startSession({ contextWindow: 64_000 });
for (let n = 0; n < 30 && session.state.viewVersion === 0; n++) {
  await runTurns(session, n, 1);
  await palimpsest.precompaction?.idle(); // here an agent would be waiting for its model: jobs run meanwhile
}

const stats = palimpsest.precompaction?.stats();
const modes = (await session.history()).map((c) => `${c.mode}/${c.trigger}`);
console.log(`hits ${stats?.hits}, saved ${stats?.savedMs} ms; compactions: ${modes.join(", ")}`);
await palimpsest.close();
