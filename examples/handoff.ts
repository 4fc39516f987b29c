/** Hand-off: in process with `handOff`, and across processes through the claimable queue. */
import { openPalimpsest } from "palimpsest";

const palimpsest = await openPalimpsest({ url: ":memory:" });
const session = await palimpsest.startSession({ model: "gpt-4o" });
await session.append({ role: "user", content: "Summarize the build log" }, { turnId: "t1" });

// In process: the source is sealed (no more writes), the successor starts with its view in one append.
const successor = await palimpsest.handOff(session, { reason: "rotate" });
console.log(
  `successor has ${successor.view().messages.length} message(s), parent ${successor.state.started?.parent?.sessionId === session.id}`,
);

// Across processes: the source process requests, a worker claims under a lease and completes it.
const request = await palimpsest.handoffs.request(successor, { target: "batch-workers", reason: "long job" });
const claim = await palimpsest.handoffs.claim({ claimant: "worker-1", leaseMs: 60_000, target: "batch-workers" });
if (claim === undefined) throw new Error("nothing to claim");
await palimpsest.handoffs.renew(claim, 60_000); // still working: extend the lease
const next = await palimpsest.handoffs.complete(claim); // seals the source, starts the successor: a Session
console.log(`${(await palimpsest.handoffs.get(request.handoffId)).status}: ${next.id === request.successorSessionId}`);
await palimpsest.close();
