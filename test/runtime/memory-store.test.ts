/**
 * An agent tested the way a user tests theirs: the runtime over @palimpsest/store/testing's memory store
 * (no database, no file), through the same calls as on SQLite and PostgreSQL. A second store on the same
 * data (`connect`) stands for a second process.
 */
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { compactRange, Palimpsest, type Session } from "@palimpsest/runtime";
import { createMemoryStore, type MemoryStore } from "@palimpsest/store/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";
import { viewProblems } from "../support/view-invariants.ts";

describe("the runtime on a memory store", () => {
  let store: MemoryStore;
  let runtime: Palimpsest;
  /** Another runtime on the same data, as another process would be. */
  let other: Palimpsest;
  beforeEach(() => {
    store = createMemoryStore();
    runtime = new Palimpsest({
      store,
      counterFor: createTokenCounter,
      compaction: { auto: true, policy: "summary", profile: "local", contextWindow: 6_000 },
    });
    other = new Palimpsest({ store: store.connect(), counterFor: createTokenCounter });
  });
  afterEach(() => Promise.all([runtime.close(), other.close()]));

  /** Appends exchanges `from`..`to - 1`, each a turn it then completes. */
  async function turns(session: Session, from: number, to: number): Promise<void> {
    for (let n = from; n < to; n++) {
      await session.append(exchange(n), { turnId: `turn${n}` });
      await session.completeTurn(`turn${n}`, { promptTokens: 100 * n, completionTokens: 7 });
    }
  }

  it("starts, appends, completes turns, compacts after a turn and resumes the same view elsewhere", async () => {
    const session = await runtime.startSession({ model: "gpt-4o", source: { format: "test", externalId: "agent-1" } });
    await turns(session, 0, 30);
    const log = await store.readStream(session.id);
    expect(log.filter((e) => e.type === "messages.superseded").length).toBeGreaterThan(0);
    expect(session.state.viewVersion).toBeGreaterThan(0);
    expect(await store.getSession(session.id)).toMatchObject({
      version: log.length,
      viewVersion: session.state.viewVersion,
    });
    expect(viewProblems(session, log)).toEqual([]);

    const resumed = await other.resume("agent-1"); // by name, in the other "process"
    expect(resumed.id).toBe(session.id);
    expect(resumed.view()).toEqual(session.view());
    expect(resumed.resumeState()).toEqual(session.resumeState());
    await resumed.append({ id: "late", role: "user", content: "one more thing" });
    const stale = await rejection(session.append({ id: "late", role: "user", content: "again" }));
    expect(stale).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "duplicate-message-id" } });
  });

  it("forks at a seq and hands off, directly and through the claimable queue", async () => {
    const parent = await runtime.startSession({ model: "gpt-4o" });
    await parent.append([...exchange(1), ...exchange(2)]);
    await compactRange(parent, { fromId: "u1", toId: "r1", summary: "asked and answered 1" });
    const atSeq = parent.state.lastSeq;
    await parent.append(exchange(3));
    const fork = await other.fork(parent.id, { atSeq });
    expect(fork.view().messages.map((m) => m.id)).toEqual([expect.any(String), "u2", "a2", "t2", "r2"]);
    expect(fork.resumeState().lineage.parent).toEqual({ sessionId: parent.id, relation: "fork", atSeq });

    const successor = await runtime.handOff(parent, { reason: "rotation" });
    expect(successor.view().messages).toEqual(parent.view().messages);
    const sealed = await rejection(parent.append({ role: "user", content: "too late" }));
    expect(sealed).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "session-handed-off" } });

    const requested = await runtime.handoffs.request(fork, { target: "worker" });
    const claim = await other.handoffs.claim({ claimant: "worker-1", leaseMs: 30_000, target: "worker" });
    expect(claim).toMatchObject({ handoffId: requested.handoffId, status: "claimed", attempts: 1 });
    if (claim === undefined) throw new Error("nothing to claim");
    const taken = await other.handoffs.complete(claim);
    expect(taken.id).toBe(requested.successorSessionId);
    expect(taken.view().messages).toEqual(fork.view().messages);
    expect(await runtime.handoffs.get(requested.handoffId)).toMatchObject({ status: "completed" });
    expect(await other.handoffs.claim({ claimant: "worker-2", leaseMs: 1_000 })).toBeUndefined();
  });

  it("erases a session to its skeleton, refuses its later writes, and fails once closed", async () => {
    const session = await runtime.startSession({ model: "gpt-4o" });
    await turns(session, 0, 2);
    const erased = await other.erase(session.id, { reason: "ticket-7" });
    expect(erased).toMatchObject({ erased: true, events: session.state.lastSeq, messages: 8 });
    expect(JSON.stringify(await store.readStream(session.id))).not.toContain("question 1");
    const refused = await rejection(session.append({ role: "user", content: "still there?" }));
    expect(refused).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "session-erased" } });

    await runtime.close();
    const closed = await rejection(store.readStream(session.id));
    expect(closed).toMatchObject({ code: "STORAGE", details: { operation: "readStream" } });
    expect(await other.store.getSession(session.id)).toMatchObject({ erasedAt: erased.erasedAt });
  });
});
