/**
 * A purge of erased content under a writer: another process appends to sessions of its own, one message
 * after another, while this one erases a session and purges (twice, or until a purge overlapped an append). Every append succeeds (the writes wait
 * for the rewritten relation, or retry on SQLite's busy file) and is in the log afterwards, in order, once.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { afterEach, describe, expect, it } from "vitest";
import { startScript } from "../support/child-script.ts";
import { scanDatabaseFiles } from "../support/file-scan.ts";
import { type TestEngine, testEngines } from "../support/test-engines.ts";
import { populatedSession, uniqueMarker } from "./erase-fixtures.ts";
import { bigToolOutput } from "./purge-fixtures.ts";

/** A line the writer prints (see test/support/steady-writer.ts). */
type WriterLine = {
  started?: string[];
  stored?: string;
  sessionId?: string;
  at?: number;
  ms?: number;
  error?: string;
  done?: number;
};

/** Now on the wall clock, comparable with the writer's `at` (same machine). */
const wallClock = () => performance.timeOrigin + performance.now();

/** Waits until `predicate` holds, polling; fails after `timeoutMs`. */
async function until(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const start = performance.now();
  while (!predicate()) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

for (const engine of testEngines()) {
  describe.skipIf(engine.skip !== undefined)(`purgeErased under another process's appends (${engine.name})`, () => {
    let disposers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const dispose of disposers.reverse()) await dispose();
      disposers = [];
    });

    it("every append to other sessions during the purge succeeds and is in the log once, in order", async () => {
      const db = await (engine as TestEngine).create("purge_writers", "store.db");
      disposers.push(() => db.drop());
      const store = await openEventStore(db.url);
      disposers.push(() => store.close());
      const runtime = new Palimpsest({ store, counterFor: createTokenCounter, snapshotEvery: 1 });
      const marker = uniqueMarker("w");
      const erased = await populatedSession(runtime, marker);
      await bigToolOutput(erased, marker, 0);

      const writer = startScript("test/support/steady-writer.ts", [db.url, "3"]);
      disposers.push(async () => {
        writer.endInput();
        await writer.exited;
      });
      const lines = writer.messages as WriterLine[];
      const stored = () => lines.filter((l) => l.stored !== undefined).length;
      await until(() => stored() >= 20, `the writer's first appends (stderr: ${writer.stderr()})`);
      await runtime.erase(erased.id);
      const appends = () =>
        lines.flatMap((l) => (l.at === undefined ? [] : [{ start: l.at - (l.ms ?? 0), end: l.at }]));
      const overlapping = (purge: { start: number; end: number }) =>
        appends().some((a) => a.start < purge.end && a.end > purge.start);
      // Two purges at least; more (up to 10) until one has overlapped an append the writer reported, so a
      // purge shorter than the writer's pause between two appends (a loaded machine) cannot void the test.
      const purges: { start: number; end: number; result: Awaited<ReturnType<Palimpsest["purgeErased"]>> }[] = [];
      while (purges.length < 2 || (purges.length < 10 && !purges.some(overlapping))) {
        const start = wallClock();
        const result = await runtime.purgeErased();
        purges.push({ start, end: wallClock(), result });
      }
      const after = stored();
      await until(() => stored() >= after + 20, "the writer's appends after the purges");
      writer.endInput();
      expect(await writer.exited).toEqual({ code: 0, signal: null });

      expect(lines.filter((l) => l.error !== undefined)).toEqual([]);
      expect(lines.at(-1)?.done).toBe(stored());
      // A purge overlapped appends: one was in flight while it ran (else the test would show nothing).
      for (const purge of purges) expect(purge.result.relations.length).toBeGreaterThan(0);
      expect(purges.some(overlapping)).toBe(true);
      const sessionIds = lines.find((l) => l.started !== undefined)?.started ?? [];
      expect(sessionIds).toHaveLength(3);
      for (const sessionId of sessionIds) {
        const expected = lines.filter((l) => l.sessionId === sessionId).map((l) => l.stored);
        const log = await store.readStream(sessionId);
        const ids = log.flatMap((e) => (e.type === "message.appended" ? [e.data.message.id] : []));
        expect(ids).toEqual(expected);
      }
      const hits = await scanDatabaseFiles(db.url, [marker]);
      expect(Object.fromEntries(hits)).toEqual({});
    });
  });
}
