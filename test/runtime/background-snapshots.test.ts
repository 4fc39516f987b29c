/**
 * A session's snapshot is a cache: the append that makes it due does not wait for it. It is written in the
 * background, from the state as it is then; the runtime's `settled` and `close` wait for it.
 */
import type { Snapshot } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";

type Store = Palimpsest["store"];

/** `store` with its saveSnapshot held until `open()`: `entered` resolves when a save is called; `saved`, when it is done. */
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
          entered(snapshot);
          await gate;
          await target.saveSnapshot(snapshot);
          order.push("saved");
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

    it("an append returns before the snapshot it made due is written; settled waits for it", async () => {
      const base = await backend.open();
      const gated = gatedSnapshots(base.store);
      const runtime = new Palimpsest({ store: gated.store, counterFor: createTokenCounter, snapshotEvery: 2 });
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append([
        { id: "u1", role: "user", content: "first" },
        { id: "a1", role: "assistant", content: "reply" },
      ]);
      // The append has returned; the snapshot starts after it, held at the gate: nothing stored yet.
      const snapshot = await gated.called;
      expect(snapshot.seq).toBe(session.state.lastSeq);
      expect(await base.store.loadSnapshot(session.id)).toBeUndefined();

      const settled = runtime.settled().then(() => gated.order.push("settled"));
      gated.open();
      await settled;
      expect(gated.order).toEqual(["saved", "settled"]);
      expect((await base.store.loadSnapshot(session.id))?.seq).toBe(session.state.lastSeq);
    });

    it("close waits for a snapshot still being written, then closes the store", async () => {
      const base = await backend.open();
      const gated = gatedSnapshots(base.store);
      const runtime = new Palimpsest({ store: gated.store, counterFor: createTokenCounter, snapshotEvery: 2 });
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append([
        { id: "u1", role: "user", content: "kept in the snapshot" },
        { id: "a1", role: "assistant", content: "reply" },
      ]);
      await gated.called;
      const closing = runtime.close().then(() => gated.order.push("closed"));
      gated.open();
      await closing;
      expect(gated.order).toEqual(["saved", "closed"]);
      const reader = await backend.open();
      const stored = await reader.store.loadSnapshot(session.id);
      expect(stored?.seq).toBe(session.state.lastSeq);
      expect(stored?.state).toContain("kept in the snapshot");
    });

    it("writes one session's snapshots in order, each from the state as it was when it ran", async () => {
      const runtime = await backend.open({ snapshotEvery: 1 });
      const session = await runtime.startSession({ model: "gpt-4o" });
      for (let n = 0; n < 5; n++) await session.append({ id: `u${n}`, role: "user", content: `message ${n}` });
      await runtime.settled();
      const stored = await runtime.store.loadSnapshot(session.id);
      expect(stored?.seq).toBe(session.state.lastSeq);
      expect(stored?.state).toContain("message 4");
    });
  });
}
