/**
 * One of the two long-lived worker processes of interleavings.test.ts: runs the operations the parent
 * sends, over session handles it keeps between runs (as an agent would, so they go stale), and reports
 * each operation's acknowledged writes or its typed error.
 */
import type { StoredEvent } from "@palimpsest/core";
import { compact, compactRange } from "@palimpsest/runtime";
import { exchange } from "../support/exchange.ts";
import { viewProblems } from "../support/view-invariants.ts";
import { parentMessages, report } from "./fault-process.ts";
import { faultCompaction, hookedSummarizer, middleRange, openWorkerRuntime, reportError } from "./fault-workload.ts";
import type { InterleavedOp, InterleavingRun, OpResult } from "./interleavings-protocol.ts";
import { SessionHandles } from "./session-handles.ts";

const parent = parentMessages();

const { url, worker } = (await parent.next()) as { url: string; worker: number };
const summarizer = hookedSummarizer(
  async () => {},
  () => false,
);
const afterTurn: OpResult[] = [];
/** Automatic compactions by session, taken by the append that completed the turn (runs go on at once). */
const autoCompactions = new Map<string, string[]>();
const { store, runtime } = await openWorkerRuntime(url, async () => {}, {
  compaction: faultCompaction(summarizer),
  snapshotEvery: 20,
  onAfterTurnError: (error) => void afterTurn.push({ op: { kind: "complete" }, error: reportError(error) }),
  onAutoCompaction: (outcome, session) => {
    if (outcome.status === "compacted" && outcome.event.type === "messages.superseded") {
      autoCompactions.set(session.id, [...(autoCompactions.get(session.id) ?? []), outcome.event.data.compactionId]);
    }
  },
});
const handles = new SessionHandles(runtime);

const compactionOf = (events: readonly StoredEvent[]) =>
  events.flatMap((e) => (e.type === "messages.superseded" ? [e.data.compactionId] : []));

async function run(op: InterleavedOp, slots: string[], target: string, result: OpResult): Promise<void> {
  if (op.kind === "complete") {
    const claim = await runtime.handoffs.claim({ claimant: `w${worker}`, leaseMs: 30_000, target });
    if (claim === undefined) return;
    const successor = await runtime.handoffs.complete(claim);
    handles.keep(successor);
    result.handoff = { from: claim.sourceSessionId, to: successor.id };
    return;
  }
  const session = await handles.get(slots[op.slot] as string);
  result.session = session.id;
  switch (op.kind) {
    case "append": {
      const batch = exchange(op.n);
      await session.append(batch, { idempotencyKey: `i${op.n}`, turnId: `turn${op.n}` });
      result.messages = batch.map((m) => m.id);
      autoCompactions.delete(session.id);
      await session.completeTurn(`turn${op.n}`);
      result.turn = `turn${op.n}`;
      result.compactions = autoCompactions.get(session.id) ?? [];
      return;
    }
    case "compact": {
      // Growth allowed: these forced compactions of small sessions test the write loop, not the growth refusal.
      const outcome = await compact(session, {
        ...faultCompaction(summarizer, op.policy),
        force: true,
        allowGrowth: true,
      });
      if (outcome.status === "compacted") result.compactions = compactionOf([outcome.event]);
      return;
    }
    case "range": {
      const range = middleRange(session);
      if (range !== undefined)
        result.compactions = compactionOf(await compactRange(session, { ...range, summary: "range" }));
      return;
    }
    case "handoff": {
      const successor = await runtime.handOff(session, { toSessionId: op.to });
      handles.keep(successor);
      slots[op.slot] = successor.id; // this worker goes on in the successor
      result.handoff = { from: session.id, to: successor.id };
      return;
    }
    case "request":
      await runtime.handoffs.request(session, { successorSessionId: op.to, target });
      return;
    case "read": {
      // The log is read after the resume and cut at its last seq: the other worker may write in between.
      const fresh = await runtime.resume(session.id);
      const log = await store.readStream(session.id, { toSeq: fresh.state.lastSeq });
      result.problems = viewProblems(fresh, log);
    }
  }
}

/** Runs one interleaving's operations in order and reports what each did. */
async function runAll({ id, ops, slots, target }: InterleavingRun): Promise<void> {
  const results: OpResult[] = [];
  for (const op of ops) {
    const result: OpResult = { op };
    try {
      await run(op, slots, target, result);
    } catch (error) {
      result.error = reportError(error);
    }
    results.push(result);
  }
  await report({ t: "done", id, results, afterTurn: afterTurn.splice(0) });
}

await report({ t: "ready" });
for (;;) void runAll((await parent.next()) as InterleavingRun);
