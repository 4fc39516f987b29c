/**
 * The process crash-kills.test.ts SIGKILLs: runs seeded steps (start, append a turn and complete it,
 * compact by policy or range, hand off directly or through the queue, project the audit models) on two
 * lanes of sessions, reporting each acknowledgement (the API call returned) to the parent before going on.
 * Its first step may be a retry of the step a kill interrupted: same ids, same idempotency key.
 */
import { messageKey } from "@palimpsest/core";
import { compact, compactRange, type Session } from "@palimpsest/runtime";
import { AuditReadModels } from "@palimpsest/store";
import { exchange } from "../support/exchange.ts";
import { type CrashConfig, type CrashEffect, crashStep, type RetryOutcome } from "./crash-protocol.ts";
import { report } from "./fault-process.ts";
import { FaultRandom } from "./fault-random.ts";
import {
  faultCompaction,
  type Hook,
  hookedSummarizer,
  middleRange,
  openWorkerRuntime,
  reportError,
} from "./fault-workload.ts";
import { SessionHandles } from "./session-handles.ts";
import { openWorkerKeyring } from "./worker-keys.ts";

const config = await new Promise<CrashConfig>((resolve) => {
  // The listener stays: it keeps the channel (and a parked process) alive until the parent kills it.
  process.on("message", (message) => resolve(message as CrashConfig));
});
const fail = (step: number, error: unknown) =>
  report({ t: "error", step, error: reportError(error) }).finally(() => process.exit(1));
process.on("uncaughtException", (error) => void fail(-1, error));
process.on("unhandledRejection", (error) => void fail(-1, error));

const seen = new Map<string, number>();
const plan = config.plan;
const hook: Hook = async (name) => {
  const n = (seen.get(name) ?? 0) + 1;
  seen.set(name, n);
  if (plan.kind !== "hook" || plan.name !== name || plan.nth !== n) return;
  await report({ t: "hook", name });
  if (plan.park) await new Promise(() => {});
};
const random = new FaultRandom(config.seed ^ config.generation);
const summarizer = hookedSummarizer(hook, () => random.next() < 0.25);
const autoCompactions: string[] = [];
const keyring = config.keys === undefined ? undefined : await openWorkerKeyring(config.keys);
const { store, runtime } = await openWorkerRuntime(
  config.url,
  hook,
  {
    snapshotEvery: 3,
    compaction: faultCompaction(summarizer),
    // Each generation's clock runs an hour ahead of the last one's, so a killed claimer's lease has run out.
    handoffClock: () => Date.now() + config.generation * 3_600_000,
    onAfterTurnError: (error) => void fail(-2, error),
    onAutoCompaction: (outcome) => {
      if (outcome.status === "compacted" && outcome.event.type === "messages.superseded") {
        autoCompactions.push(outcome.event.data.compactionId);
      }
    },
  },
  keyring,
);
const stopFollowing = config.follow
  ? new AuditReadModels(store).follow({ onError: (e) => void fail(-3, e) })
  : undefined;
const lanes = [...config.lanes];
const handles = new SessionHandles(runtime);

const ack = (step: number, effect: CrashEffect) => report({ t: "ack", step, effect });
const retried = (step: number, outcome: RetryOutcome) => report({ t: "retry", step, outcome });

/** Appends step's exchange with its key and completes its turn; on a retry, reports how the retry went. */
async function appendTurn(step: number, session: Session, retry: boolean): Promise<void> {
  const messages = exchange(step);
  const ids = messages.map((m) => m.id);
  const turnId = `turn${step}`;
  await session.refresh();
  const already = retry && (await store.knownKeys(session.id, ids.map(messageKey))).size === ids.length;
  // A retry of an append that had committed returns the original result (defect 3 refused it).
  await session.append(messages, { idempotencyKey: `k${step}`, turnId });
  if (already) await retried(step, "replayed");
  await hook("committed:append");
  await ack(step, { messages: { session: session.id, ids } });
  if (session.state.lastTurn?.turnId !== turnId) {
    autoCompactions.length = 0;
    await session.completeTurn(turnId);
  }
  await ack(step, {
    turn: { session: session.id, turnId },
    compactions: autoCompactions.splice(0),
    session: session.id,
  });
}

/** Hands lane's session off (directly, or requested, claimed and completed through the queue) to `to`. */
async function handOff(step: number, lane: number, session: Session, to: string, queued: boolean): Promise<void> {
  let successor: Session;
  if (!queued) successor = await runtime.handOff(session, { toSessionId: to });
  else {
    const rows = await store.handoffQueue.list({ sourceSessionId: session.id });
    const done = rows.find((h) => h.status === "completed" && h.successorSessionId === to);
    if (done !== undefined) successor = await runtime.resume(to);
    else {
      if (!rows.some((h) => h.status === "pending" || h.status === "claimed")) {
        await runtime.handoffs.request(session, { successorSessionId: to, target: config.tag });
      }
      const claim = await runtime.handoffs.claim({
        claimant: `g${config.generation}`,
        leaseMs: 60_000,
        target: config.tag,
      });
      if (claim === undefined) throw new Error(`no hand-off of ${session.id} to claim`);
      successor = await runtime.handoffs.complete(claim);
    }
  }
  handles.keep(successor);
  lanes[lane] = successor.id;
  await ack(step, { handoff: { from: session.id, to: successor.id }, lane: { lane, session: successor.id } });
}

async function run(step: number, retry: boolean): Promise<void> {
  const op = crashStep(config.seed, step, lanes);
  const laneSession = lanes[op.lane];
  const newId = `${config.tag}-l${op.lane}-${step}`;
  if (op.kind === "start" || laneSession === undefined || laneSession === null) {
    if ((await store.getSession(newId)) === undefined) {
      handles.keep(await runtime.startSession({ sessionId: newId, model: "gpt-4.1", contextWindow: 4_000 }));
    }
    lanes[op.lane] = newId;
    await ack(step, { lane: { lane: op.lane, session: newId } });
    return;
  }
  const session = await handles.get(laneSession);
  await session.refresh();
  switch (op.kind) {
    case "append":
      return appendTurn(step, session, retry);
    case "compact": {
      // Growth allowed: these forced compactions of small sessions test the write loop, not the growth refusal.
      const outcome = await compact(session, {
        ...faultCompaction(summarizer, op.policy),
        force: true,
        allowGrowth: true,
      });
      if (outcome.status === "compacted" && outcome.event.type === "messages.superseded") {
        await ack(step, { compactions: [outcome.event.data.compactionId], session: session.id });
      }
      return;
    }
    case "range": {
      const range = middleRange(session);
      if (range === undefined) return;
      const [event] = await compactRange(session, { ...range, summary: `range summary ${step}` });
      if (event?.type === "messages.superseded") {
        await ack(step, { compactions: [event.data.compactionId], session: session.id });
      }
      return;
    }
    case "handoff":
      return handOff(step, op.lane, session, newId, op.queued);
    case "audit":
      await new AuditReadModels(store).catchUp();
  }
}

await report({ t: "ready" });
for (let step = config.step, n = 0; n < config.steps; step++, n++) {
  try {
    await run(step, n === 0);
  } catch (error) {
    await fail(step, error);
  }
  await report({ t: "done", step });
}
if (plan.kind === "finish") {
  await stopFollowing?.(); // a catch-up in flight ends before the store closes
  await runtime.close();
  process.exit(0);
}
await report({ t: "idle" });
