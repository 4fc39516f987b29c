import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StorageError, type StoredEvent } from "@palimpsest/core";
import { AuditReadModels, openEventStore } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSessionId, started, textOf, userMessage } from "../contract/fixtures.ts";
import type { TestStore } from "../support/store-backends.ts";
import { databaseOf } from "../support/store-database.ts";
import { appendUntilStored } from "./append-until-stored.ts";
import { faultCount, faultSeed } from "./fault-scale.ts";
import { forkSqliteProcess, type SqliteProcess } from "./sqlite-process.ts";

/** Appends each of the two writers makes in the contention cases. */
const APPENDS = faultCount(200, 2000);
const seed = faultSeed();

/** A write of every kind the store makes on SQLite, to one session of `store`; `tag` keeps them apart. */
function writes(store: TestStore, sessionId: string, tag: string): Record<string, () => Promise<unknown>> {
  return {
    append: () => store.append(sessionId, [userMessage(`${tag}-m`, tag)], { expectedVersion: "any" }),
    "guarded write (audit projector)": () => new AuditReadModels(store).catchUp(),
    snapshot: () => store.saveSnapshot({ sessionId, seq: 1, format: 1, state: tag, checksum: "0".repeat(64) }),
    candidate: () =>
      store.saveCandidate({
        key: {
          sessionId,
          lastMessageId: tag,
          prefixHash: "a".repeat(64),
          systemPromptHash: "b".repeat(64),
          summarizerModel: "m",
          promptVersion: "v1",
        },
        targets: [],
        summary: tag,
        basisViewVersion: 0,
        createdAt: 0,
        summaryMs: 0,
      }),
    "hand-off queue": () =>
      store.handoffQueue.insert({ sourceSessionId: `${sessionId}-${tag}`, successorSessionId: `${tag}-next` }),
  };
}

/** Resolves after `count` ticks of a 1 ms interval, and reports how many ticks there were so far. */
function ticker() {
  let ticks = 0;
  const waiters: { at: number; resolve: () => void }[] = [];
  const timer = setInterval(() => {
    ticks++;
    for (const w of waiters.filter((w) => w.at <= ticks)) w.resolve();
  }, 1);
  return {
    after: (count: number) => new Promise<void>((resolve) => waiters.push({ at: ticks + count, resolve })),
    stop: () => clearInterval(timer),
  };
}

/** Runs `operation` and says, at any moment, whether it has settled. */
function tracked<T>(operation: Promise<T>) {
  let settled = false;
  const done = operation.finally(() => {
    settled = true;
  });
  done.catch(() => {});
  return { done, settled: () => settled };
}

describe(`SQLite: two processes on one file (seed ${seed})`, () => {
  let dir: string;
  let file: string;
  let holder: SqliteProcess;
  let writer: SqliteProcess;
  /** Waits up to a minute for a lock: long enough that only a released lock ends a wait in these cases. */
  let patient: TestStore;
  /** Waits a fifth of a second for a lock. */
  let hasty: TestStore;
  let sessionId: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "palimpsest-two-processes-"));
    file = join(dir, "store.db");
    [holder, writer] = await Promise.all([forkSqliteProcess(), forkSqliteProcess()]);
    patient = await openEventStore(file, { sqliteBusyTimeoutMs: 60_000 });
    hasty = await openEventStore(file, { sqliteBusyTimeoutMs: 200 });
    sessionId = newSessionId("held");
    await patient.append(sessionId, [started(), userMessage("m1", "before")], { expectedVersion: "no-stream" });
  });
  afterAll(async () => {
    await Promise.all([holder.stop(), writer.stop()]);
    await Promise.all([patient.close(), hasty.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  const kinds = Object.keys(writes({} as TestStore, "", ""));

  it.each(kinds)(
    "%s: the event loop turns and reads answer while another process holds the lock; done once it lets go",
    async (kind) => {
      const write = writes(patient, sessionId, `wait-${kind}`)[kind] as () => Promise<unknown>;
      expect(await holder.request({ op: "hold", file })).toEqual({ ok: true });
      const ticks = ticker();
      try {
        const pending = tracked(write());
        await ticks.after(20); // a timer fired 20 times during the wait
        expect((await patient.readStream(sessionId)).length).toBeGreaterThan(0); // a read answered
        expect(pending.settled()).toBe(false); // the write is still waiting for the lock
        expect(await holder.request({ op: "release" })).toEqual({ ok: true });
        await pending.done; // and completes once the lock is free
      } finally {
        ticks.stop();
        await holder.request({ op: "release" });
      }
    },
  );

  it("opening (and migrating) a fresh file another process holds waits for it, then succeeds", async () => {
    const fresh = join(dir, "fresh.db");
    expect(await holder.request({ op: "hold", file: fresh })).toEqual({ ok: true });
    const ticks = ticker();
    try {
      const opening = tracked(openEventStore(fresh, { sqliteBusyTimeoutMs: 60_000 }));
      await ticks.after(20);
      expect(opening.settled()).toBe(false);
      expect(await holder.request({ op: "release" })).toEqual({ ok: true });
      const store = await opening.done;
      expect(await store.listSessions()).toEqual([]);
      await store.close();
    } finally {
      ticks.stop();
      await holder.request({ op: "release" });
    }
  });

  it.each(kinds)(
    "%s: past the deadline it fails STORAGE retryable, naming the file, and changes nothing",
    async (kind) => {
      // an event the audit projector has not seen yet, so that it has a page to write
      await patient.append(sessionId, [userMessage(`unseen-${kind}`, kind)], { expectedVersion: "any" });
      const stored = () =>
        Promise.all([
          patient.readStream(sessionId),
          patient.loadSnapshot(sessionId),
          patient.loadCandidate(sessionId),
          patient.handoffQueue.list({}),
          databaseOf(patient).selectFrom("audit_checkpoints").selectAll().execute(),
        ]);
      const before = await stored();
      const write = writes(hasty, sessionId, `fail-${kind}`)[kind] as () => Promise<unknown>;
      expect(await holder.request({ op: "hold", file })).toEqual({ ok: true });
      let failure: unknown;
      try {
        await write().catch((error: unknown) => {
          failure = error;
        });
      } finally {
        await holder.request({ op: "release" });
      }
      expect(failure).toBeInstanceOf(StorageError);
      const error = failure as StorageError;
      expect(error.code).toBe("STORAGE");
      expect(error.details.retryable).toBe(true);
      expect(error.message).toContain(`the database file ${file} is locked by another process; waited`);
      expect(await stored()).toEqual(before);
    },
  );

  for (const sessions of [1, 4]) {
    it(`two processes appending ${APPENDS} messages each to ${sessions} session(s): none lost, none doubled, conflicts typed`, async () => {
      const sessionIds = Array.from({ length: sessions }, () => newSessionId("contended"));
      for (const id of sessionIds) await patient.append(id, [started()], { expectedVersion: "no-stream" });
      const store = await openEventStore(file); // the default deadline, like any other process
      try {
        const [child, parent] = await Promise.all([
          writer.request({ op: "append", url: file, sessionIds, count: APPENDS, seed, tag: "child" }),
          appendUntilStored(store, { sessionIds, count: APPENDS, seed: seed + 1, tag: "parent" }),
        ]);
        expect(child).toMatchObject({ ok: true, errors: [] });
        expect(parent.errors).toEqual([]);
        const events: StoredEvent[] = (await Promise.all(sessionIds.map((id) => store.readStream(id)))).flat();
        const texts = events.filter((e) => e.type === "message.appended").map((e) => textOf(e));
        const expected = ["child", "parent"].flatMap((tag) => Array.from({ length: APPENDS }, (_, i) => `${tag}-${i}`));
        expect(texts.toSorted()).toEqual(expected.toSorted());
        for (const id of sessionIds) {
          const seqs = events.filter((e) => e.sessionId === id).map((e) => e.seq);
          expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
        }
      } finally {
        await store.close();
      }
    });
  }
});
