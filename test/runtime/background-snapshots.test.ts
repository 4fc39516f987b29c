/**
 * A session's snapshot is a cache: the append that makes it due does not wait for it. It is written in the
 * background, from the state as it is then; the runtime's `settled` and `close` wait for it. A large state
 * is encoded in slices, the event loop turning between them; a view past SNAPSHOT_SCALE_TOKENS snapshots
 * less often, in proportion.
 */
import type { SessionState, Snapshot } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest, saveSnapshot } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SNAPSHOT_SCALE_TOKENS, snapshotInterval } from "../../packages/runtime/src/runtime/load-session.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

type Store = Palimpsest["store"];

/**
 * `store` with its saveSnapshot held until `open()`: `called` resolves when the first save is called; `order`
 * records each save's entry ("entered <seq>") and end ("saved <seq>").
 */
function gatedSnapshots(store: Store) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let entered!: (snapshot: Snapshot) => void;
  const called = new Promise<Snapshot>((resolve) => {
    entered = resolve;
  });
  const order: string[] = [];
  const gated = new Proxy(store, {
    get(target, property) {
      if (property === "saveSnapshot") {
        return async (snapshot: Snapshot) => {
          order.push(`entered ${snapshot.seq}`);
          entered(snapshot);
          await gate;
          await target.saveSnapshot(snapshot);
          order.push(`saved ${snapshot.seq}`);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: gated, open, called, order };
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`background snapshots (${backend.name})`, () => {
    beforeAll(() => backend.setup());
    afterAll(() => backend.dispose());

    /**
     * A runtime whose snapshots (every 2 events) are held at a gate (gatedSnapshots), a session of it, and
     * `pair(n, text)`: one exchange appended, two events, so a snapshot is due after each.
     */
    async function gatedSession() {
      const base = await backend.open();
      const gated = gatedSnapshots(base.store);
      const runtime = new Palimpsest({ store: gated.store, counterFor: createTokenCounter, snapshotEvery: 2 });
      const session = await runtime.startSession({ model: "gpt-4o" });
      const pair = (n: number, text = `message ${n}`) =>
        session.append([
          { id: `u${n}`, role: "user", content: text },
          { id: `a${n}`, role: "assistant", content: `reply ${n}` },
        ]);
      return { base, gated, runtime, session, pair };
    }

    it("an append returns before the snapshot it made due is written; settled waits for it", async () => {
      const { base, gated, runtime, session, pair } = await gatedSession();
      await pair(1);
      // The append has returned; the snapshot starts after it, held at the gate: nothing stored yet.
      const snapshot = await gated.called;
      expect(snapshot.seq).toBe(session.state.lastSeq);
      expect(await base.store.loadSnapshot(session.id)).toBeUndefined();

      const settled = runtime.settled().then(() => gated.order.push("settled"));
      gated.open();
      await settled;
      expect(gated.order).toEqual([`entered ${snapshot.seq}`, `saved ${snapshot.seq}`, "settled"]);
      expect((await base.store.loadSnapshot(session.id))?.seq).toBe(session.state.lastSeq);
    });

    it("close waits for a snapshot still being written, then closes the store", async () => {
      const { gated, runtime, session, pair } = await gatedSession();
      await pair(1, "kept in the snapshot");
      const { seq } = await gated.called;
      const closing = runtime.close().then(() => gated.order.push("closed"));
      gated.open();
      await closing;
      expect(gated.order).toEqual([`entered ${seq}`, `saved ${seq}`, "closed"]);
      const reader = await backend.open();
      const stored = await reader.store.loadSnapshot(session.id);
      expect(stored?.seq).toBe(session.state.lastSeq);
      expect(stored?.state).toContain("kept in the snapshot");
    });

    it("writes one session's snapshots one after another: the second starts once the first is stored", async () => {
      const { base, gated, runtime, session, pair } = await gatedSession();
      await pair(1);
      const first = await gated.called; // held at the gate
      await pair(2); // makes a second snapshot due while the first is held
      const second = session.state.lastSeq;
      // Two turns of the event loop (a write starts on the next one): one not queued behind the first would enter now.
      for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
      gated.open();
      await runtime.settled();
      // Written at once, the second would have entered while the first was held.
      expect(gated.order).toEqual([
        `entered ${first.seq}`,
        `saved ${first.seq}`,
        `entered ${second}`,
        `saved ${second}`,
      ]);
      const stored = await base.store.loadSnapshot(session.id);
      expect(stored?.seq).toBe(second);
      expect(stored?.state).toContain("reply 2");
    });

    it("a snapshot that fails is reported to onSnapshotError; the append that made it due has succeeded", async () => {
      const base = await backend.open();
      const failing = new Proxy(base.store, {
        get(target, property) {
          if (property === "saveSnapshot") return async () => Promise.reject(new Error("disk full"));
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const reported: unknown[] = [];
      const runtime = new Palimpsest({
        store: failing,
        counterFor: createTokenCounter,
        snapshotEvery: 2,
        onSnapshotError: (error) => reported.push(error),
      });
      const session = await runtime.startSession({ model: "gpt-4o" });
      const events = await session.append([
        { id: "u1", role: "user", content: "kept in the log" },
        { id: "a1", role: "assistant", content: "reply" },
      ]);
      expect(events).toHaveLength(2);
      await runtime.settled();
      expect(reported).toEqual([new Error("disk full")]);
      expect((await base.store.readStream(session.id)).at(-1)?.seq).toBe(session.state.lastSeq);
    });

    it("encodes a large state in slices, the event loop turning between them, as the state was at the call", async () => {
      const base = await backend.open();
      const gated = gatedSnapshots(base.store);
      gated.open();
      const session = await base.startSession({ model: "gpt-4o" });
      const exchanges = Array.from({ length: 400 }, (_, n) => [
        { id: `u${n}`, role: "user" as const, content: `question ${n} ${"lorem ipsum ".repeat(400)}` },
        { id: `a${n}`, role: "assistant" as const, content: `answer ${n} ${"dolor sit ".repeat(400)}` },
      ]).flat();
      await session.append(exchanges);
      const state = structuredClone(session.state) as SessionState; // a fold's to change: the test's own
      const seq = state.lastSeq;
      let turns = 0;
      let turning = true;
      const count = () => {
        if (!turning) return;
        turns += 1;
        setImmediate(count);
      };
      setImmediate(count);
      const saved = saveSnapshot(gated.store, state).finally(() => {
        turning = false;
      });
      // What an append folds while the encoding runs: it is not in the snapshot being written.
      state.live.push({
        message: { id: "late", role: "user", content: [{ type: "text", text: "folded later" }] },
        tokens: 3,
        seq: seq + 1,
      });
      state.lastSeq = seq + 1;
      const entered = await gated.called;
      const turnsBeforeWrite = turns;
      await saved;
      // About 4 MB of JSON: encoded in one piece, the store is called before the event loop turns once.
      expect(turnsBeforeWrite).toBeGreaterThan(2);
      expect(entered.seq).toBe(seq);
      expect(entered.state).not.toContain("folded later");
      expect((await base.store.loadSnapshot(session.id))?.seq).toBe(seq);
    });

    it("snapshots a view past SNAPSHOT_SCALE_TOKENS less often, in proportion to its size", async () => {
      const base = await backend.open();
      const gated = gatedSnapshots(base.store);
      gated.open();
      const runtime = new Palimpsest({ store: gated.store, counterFor: createTokenCounter, snapshotEvery: 2 });
      const session = await runtime.startSession({ model: "gpt-4o" });
      const exchange = (n: number, content: string) =>
        session.append([
          { id: `u${n}`, role: "user", content },
          { id: `a${n}`, role: "assistant", content: `reply ${n}` },
        ]);
      await exchange(1, "a small view: a snapshot every 2 events");
      await runtime.settled();
      expect(gated.order).toEqual([`entered ${session.state.lastSeq}`, `saved ${session.state.lastSeq}`]);
      // " a" is one token: about 510K tokens of view, so a snapshot every 2 × 510K / 250K ≈ 4.1 events.
      await exchange(2, " a".repeat(510_000));
      expect(session.state.liveTokens).toBeGreaterThan(500_000);
      await exchange(3, "two events more: four since the last snapshot, not yet due");
      await runtime.settled();
      expect(gated.order).toHaveLength(2);
      await exchange(4, "six since the last snapshot: due");
      await runtime.settled();
      expect(gated.order.slice(2)).toEqual([`entered ${session.state.lastSeq}`, `saved ${session.state.lastSeq}`]);
    });
  });
}

describe("snapshotInterval", () => {
  it("is snapshotEvery up to SNAPSHOT_SCALE_TOKENS of view, in proportion past it; Infinity stays never", () => {
    expect(snapshotInterval(500, 0)).toBe(500);
    expect(snapshotInterval(500, SNAPSHOT_SCALE_TOKENS)).toBe(500);
    expect(snapshotInterval(500, 4 * SNAPSHOT_SCALE_TOKENS)).toBe(2_000);
    expect(snapshotInterval(1, 3 * SNAPSHOT_SCALE_TOKENS)).toBe(3);
    expect(snapshotInterval(Number.POSITIVE_INFINITY, 0)).toBe(Number.POSITIVE_INFINITY);
    expect(snapshotInterval(Number.POSITIVE_INFINITY, 10 * SNAPSHOT_SCALE_TOKENS)).toBe(Number.POSITIVE_INFINITY);
  });
});
