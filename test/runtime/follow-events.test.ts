import type { StoredEvent } from "@palimpsest/core";
import { type FollowProgress, followEvents } from "@palimpsest/projections/live";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../contract/change-feed-probe.ts";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import type { TestStore } from "../support/store-backends.ts";
import { watchBackends } from "./watch-backends.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A session of `count` events written in batches of 50 (one started, then user messages). */
async function seed(store: TestStore, label: string, count: number): Promise<string> {
  const sid = newSessionId(label);
  await store.append(sid, [started()], { expectedVersion: "no-stream" });
  for (let seq = 2; seq <= count; seq += 50) {
    const batch = Array.from({ length: Math.min(50, count - seq + 1) }, (_, i) => userMessage(`m${seq + i}`, "x"));
    await store.append(sid, batch, { expectedVersion: seq - 1 });
  }
  return sid;
}

for (const backend of watchBackends()) {
  describe.skipIf(backend.skip !== undefined)(
    `followEvents: backpressure and resumable positions (${backend.name})`,
    () => {
      let store: TestStore;
      let writer: TestStore;
      beforeAll(async () => {
        await backend.setup();
        store = await backend.open();
        writer = await backend.open();
      });
      afterAll(() => backend.dispose());

      it("reads the next page only after the handler settled, so a slow consumer holds one page", async () => {
        const sid = await seed(store, "slow", 600);
        const handled: number[] = [];
        let inHandler = 0;
        let overlapped = false;
        const progress: FollowProgress[] = [];
        const subscription = followEvents(
          store,
          { sessionId: sid },
          async (events) => {
            if (++inHandler > 1) overlapped = true;
            await sleep(5);
            handled.push(...events.map((e) => e.seq));
            inHandler--;
          },
          { pageSize: 40 },
        ).subscribe((p) => progress.push(p));
        try {
          // Writes go on while the follower is busy: it must get them too, each once, in order.
          await writer.append(sid, [userMessage("late-1", "y"), userMessage("late-2", "y")], { expectedVersion: 600 });
          await until(() => handled.length === 602, 20_000);
          // A marker appended after: once it is handled, nothing of the first 602 is still to come.
          await writer.append(sid, [userMessage("marker", "y")], { expectedVersion: 602 });
          await until(() => handled.includes(603), 20_000);
          expect(handled).toEqual(Array.from({ length: 603 }, (_, i) => i + 1));
          expect(overlapped).toBe(false);
          expect(Math.max(...progress.map((p, i) => p.handled - (progress[i - 1]?.handled ?? 0)))).toBeLessThanOrEqual(
            40,
          );
          expect(progress.some((p) => p.caughtUp)).toBe(true);
          expect(progress.at(-1)).toMatchObject({ handled: 603, position: { lastSeq: 603 } });
        } finally {
          subscription.unsubscribe();
        }
      });

      it("resumes the global log from a saved position without a gap or a repeat", async () => {
        const { checkpoint: start } = await store.readAll();
        const sid = await seed(writer, "resume", 120);
        const mine = (events: readonly StoredEvent[]) => events.filter((e) => e.sessionId === sid).map((e) => e.seq);
        const first: number[] = [];
        let saved: FollowProgress | undefined;
        const one = followEvents(store, { all: true, after: start }, (events) => void first.push(...mine(events)), {
          pageSize: 25,
        }).subscribe((p) => {
          saved = p;
          if (p.handled >= 50) one.unsubscribe();
        });
        await until(() => one.closed, 10_000);
        const position = saved?.position;
        if (position === undefined || !("checkpoint" in position)) throw new Error("no global position saved");
        expect(first.length).toBeGreaterThanOrEqual(50);
        const rest: number[] = [];
        const two = followEvents(
          store,
          { all: true, after: position.checkpoint },
          (events) => void rest.push(...mine(events)),
        ).subscribe();
        try {
          await until(() => first.length + rest.length >= 120, 10_000);
          await writer.append(sid, [userMessage("marker", "x")], { expectedVersion: 120 }); // arrives after the rest
          await until(() => rest.includes(121), 10_000);
          expect([...first, ...rest]).toEqual(Array.from({ length: 121 }, (_, i) => i + 1));
        } finally {
          two.unsubscribe();
        }
      });

      it("errors when the handler throws, and the failed page is delivered again on resume", async () => {
        const sid = await seed(store, "failing", 30);
        let calls = 0;
        const failure = await new Promise<unknown>((resolve) => {
          followEvents(
            store,
            { sessionId: sid },
            () => {
              if (++calls === 2) throw new Error("consumer failed");
            },
            { pageSize: 10 },
          ).subscribe({ error: resolve });
        });
        expect(failure).toBeInstanceOf(Error);
        // The first page (seqs 1-10) was handled; resuming after it gets 11-30 again, starting with the failed page.
        const again: number[] = [];
        const resumed = followEvents(
          store,
          { sessionId: sid, fromSeq: 11 },
          (events) => void again.push(...events.map((e) => e.seq)),
        ).subscribe();
        try {
          await until(() => again.length === 20, 10_000);
          expect(again[0]).toBe(11);
        } finally {
          resumed.unsubscribe();
        }
      });
    },
  );
}
