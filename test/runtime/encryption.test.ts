/**
 * Envelope encryption of content (the keyring option): what each session says is sealed under a data key
 * of its own, so no table holds it (the hand-off queue's reasons and failure texts included), reads are
 * unchanged, and an erasure destroys the key: a backup taken before it (pg_dump on PostgreSQL, a copy of
 * the file on SQLite), restored and opened with the same keyring, gives back the other sessions and none
 * of the erased one's content. Each check can fail: the plain store beside it holds the same content.
 */
import { execFile } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { openConversation } from "@palimpsest/ai-sdk";
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { openAgentsSession } from "@palimpsest/openai-agents";
import { openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels, openEventStore, openLocalKeyring } from "@palimpsest/store";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ContentCipher, sealText } from "../../packages/store/src/encryption/content-cipher.ts";
import { newSessionId, started, userMessage } from "../contract/fixtures.ts";
import { dumpDatabase, occurrences } from "../support/database-scan.ts";
import { rejection } from "../support/rejection.ts";
import { Database } from "../support/sqlite-driver.ts";
import { databaseOf } from "../support/store-database.ts";
import { testCandidate } from "../support/test-candidate.ts";
import { type TestEngine, testEngines } from "../support/test-engines.ts";
import { type TestKeyring, testKeyring } from "../support/test-keyring.ts";
import { markedTurn, populatedSession, uniqueMarker } from "./erase-fixtures.ts";

const run = promisify(execFile);

/** What a reader gets of a session: its view, its history and each compaction's originals. */
async function readBack(runtime: Palimpsest, sessionId: string) {
  const session = await runtime.resume(sessionId);
  const history = await session.history();
  return {
    view: session.view(),
    history,
    expanded: await Promise.all(history.map((h) => session.expand(h.compactionId, true))),
  };
}

for (const engine of testEngines()) {
  describe.skipIf(engine.skip !== undefined)(`encrypted content (${engine.name})`, () => {
    let disposers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const dispose of disposers.reverse()) await dispose();
      disposers = [];
    });

    /** A database of this test's own (its URL), dropped after the test. */
    async function database(label: string): Promise<string> {
      const db = await (engine as TestEngine).create(label, "store.db");
      disposers.push(() => db.drop());
      return db.url;
    }

    /** A keyring of this test's own, deleted after the test. */
    async function keys(): Promise<TestKeyring> {
      const made = await testKeyring();
      disposers.push(() => made.dispose());
      return made;
    }

    /** A runtime on `url` (snapshots after every write), closed after the test. */
    async function runtimeOn(url: string, keyring?: TestKeyring): Promise<Palimpsest> {
      const runtime = await openPalimpsest({
        url,
        snapshotEvery: 1,
        ...(keyring === undefined ? {} : { keyring: keyring.keyring }),
      });
      disposers.push(() => runtime.close());
      return runtime;
    }

    it("keeps no content or content hash in any table, and reads back what a plain store does", async () => {
      const keyring = await keys();
      const encrypted = await runtimeOn(await database("enc"), keyring);
      const plain = await runtimeOn(await database("plain"));
      const marker = uniqueMarker("x");
      const sealed = await populatedSession(encrypted, marker);
      const open = await populatedSession(plain, marker);

      // A failed hand-off's text is content too (a worker's error may quote the session).
      for (const runtime of [encrypted, plain]) {
        const claim = await runtime.handoffs.claim({ claimant: "worker", leaseMs: 60_000 });
        if (claim === undefined) throw new Error("the populated session's hand-off was not claimable");
        await runtime.handoffs.fail(claim, `worker gave up on ${marker}`);
        await runtime.handoffs.request(claim.sourceSessionId, { reason: `again ${marker}` });
      }

      // The plain store holds the marker everywhere; the encrypted one nowhere (snapshots written in the background).
      await Promise.all([encrypted.settled(), plain.settled()]);
      const plainTables = new Set(
        occurrences(await dumpDatabase(plain.store as never), marker).map((r) => r.split(":")[0]),
      );
      expect([...plainTables].sort()).toEqual(["events", "handoffs", "precompaction_candidates", "snapshots"]);
      expect(occurrences(await dumpDatabase(encrypted.store as never), marker)).toEqual([]);
      const texts = async (runtime: Palimpsest) =>
        (await runtime.handoffs.list()).map((h) => [h.status, h.reason, h.failureReason]);
      expect(await texts(encrypted)).toEqual(await texts(plain));
      expect(JSON.stringify(await texts(encrypted))).toContain(`worker gave up on ${marker}`);

      // Reads are the plain store's, but for the ids the runtime made (session, compactions).
      const strip = (value: unknown) =>
        JSON.parse(
          JSON.stringify(value)
            .replaceAll(sealed.id, "S")
            .replaceAll(open.id, "S")
            .replace(/[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g, "uuid"),
        );
      const [a, b] = [await readBack(encrypted, sealed.id), await readBack(plain, open.id)];
      expect(strip(a.view.messages)).toEqual(strip(b.view.messages));
      expect(a.view.tokens).toEqual(b.view.tokens);
      expect(strip(a.expanded)).toEqual(strip(b.expanded));
      expect(JSON.stringify(a.view)).toContain(marker);
      expect((await encrypted.store.loadCandidate(sealed.id))?.summary).toContain(marker);
      expect((await encrypted.store.loadSnapshot(sealed.id))?.state).toContain(marker);

      // The audit read models (ids, modes, counts, tokens) are the same, but for how long each compaction took.
      const totals = async (runtime: Palimpsest) => {
        const audit = new AuditReadModels(runtime.store as never);
        await audit.catchUp();
        return (await audit.compactionTotals()).map(({ meanDurationMs: _time, ...figures }) => figures);
      };
      expect(await totals(encrypted)).toEqual(await totals(plain));
    });

    it("keys content hashes per session: a keyed append replays, another content under its key is refused", async () => {
      const keyring = await keys();
      const runtime = await runtimeOn(await database("hash"), keyring);
      const marker = uniqueMarker("h");
      const [first, second] = [
        await runtime.startSession({ model: "gpt-4o" }),
        await runtime.startSession({ model: "gpt-4o" }),
      ];
      const message = { id: "m1", role: "user" as const, content: `same words ${marker}` };
      const appended = await first.append([message], { idempotencyKey: "k1" });
      await second.append([message], { idempotencyKey: "k1" });
      const replay = await (await runtime.resume(first.id)).append([message], { idempotencyKey: "k1" });
      expect(replay.map((e) => e.eventId)).toEqual(appended.map((e) => e.eventId));
      const refused = await rejection(
        (await runtime.resume(first.id)).append([{ ...message, content: "other" }], { idempotencyKey: "k1" }),
      );
      expect(refused.code).toBe("IDEMPOTENCY_MISMATCH");
      // The same content hashes differently in each session (keyed by its data key), so a hash kept in a
      // backup confirms no guess once the key is gone.
      const dump = await dumpDatabase(runtime.store as never);
      const hashes = (dump.get("idempotency_keys") ?? []).map(
        (row) => (JSON.parse(row) as { content_hash: string }).content_hash,
      );
      expect(hashes).toHaveLength(2);
      expect(new Set(hashes).size).toBe(2);
    });

    it("refuses to read content without its keyring, or under another master key, with a clear error", async () => {
      const keyring = await keys();
      const url = await database("nokey");
      const runtime = await runtimeOn(url, keyring);
      const session = await runtime.startSession({ model: "gpt-4o" });
      await markedTurn(session, uniqueMarker("n"), 0);

      const bare = await openEventStore(url);
      disposers.push(() => bare.close());
      const unkeyed = await rejection(bare.readStream(session.id));
      expect(unkeyed.code).toBe("STORAGE");
      expect(unkeyed.message).toMatch(/encrypted: open the store with its keyring/);

      const other = await openEventStore(url, {
        keyring: await openLocalKeyring({ directory: keyring.directory, masterKey: Buffer.alloc(32, 7) }),
      });
      disposers.push(() => other.close());
      const wrongKey = await rejection(other.readStream(session.id));
      expect(wrongKey.code).toBe("STORAGE");
      expect(wrongKey.message).toMatch(/master key does not open/);
      // Nothing was lost: the right keyring still reads it.
      expect((await runtime.store.readStream(session.id)).length).toBeGreaterThan(4);
    });

    it("reads sessions written before encryption was turned on, and seals what is written after", async () => {
      const keyring = await keys();
      const url = await database("mixed");
      const before = await runtimeOn(url);
      const marker = uniqueMarker("m");
      const session = await before.startSession({ model: "gpt-4o" });
      await markedTurn(session, marker, 0);
      await before.close();

      const after = await runtimeOn(url, keyring);
      const resumed = await after.resume(session.id);
      expect(JSON.stringify(resumed.view())).toContain(marker);
      const later = uniqueMarker("l");
      await markedTurn(resumed, later, 1);
      const again = await (await runtimeOn(url, keyring)).resume(session.id);
      expect(JSON.stringify(again.view())).toContain(later);
      const dump = await dumpDatabase(after.store as never);
      expect(occurrences(dump, marker).length).toBeGreaterThan(0); // written in the clear, before
      expect(occurrences(dump, later)).toEqual([]);
    });

    it("keeps a snapshot's checksum and state deflated and sealed as bytes; one damaged or sealed in an earlier form is a miss, and the log is replayed", async () => {
      const keyring = await keys();
      const runtime = await runtimeOn(await database("snapbytes"), keyring);
      const marker = uniqueMarker("s");
      const session = await runtime.startSession({ model: "gpt-4o" });
      for (let n = 0; n < 3; n++) await markedTurn(session, marker, n);
      await runtime.settled();
      const saved = await runtime.store.loadSnapshot(session.id);
      if (saved === undefined) throw new Error("the runtime saved no snapshot");
      expect(saved.state).toContain(marker);
      expect(saved.authenticated).toBe(true);
      expect(saved.checksum).toBe(createHash("sha256").update(saved.state).digest("hex")); // the runtime's, given back
      const db = databaseOf(runtime.store);
      const row = () =>
        db.selectFrom("snapshots").selectAll().where("session_id", "=", session.id).executeTakeFirstOrThrow();
      const stored = await row();
      expect([stored.state, stored.checksum]).toEqual(["", ""]);
      const sealed = Buffer.from(stored.sealed ?? []);
      expect(sealed.length).toBeLessThan(Buffer.byteLength(saved.state)); // deflated before it was sealed
      const view = JSON.stringify((await runtime.resume(session.id)).view());
      expect(view).toContain(marker);

      const sessionKeys = await new ContentCipher(keyring.keyring, "default").keysToRead(session.id);
      const checksumSealed = sealText(sessionKeys, saved.checksum, "snapshot checksum");
      const damaged = Buffer.from(sealed);
      damaged[damaged.length - 1] = (damaged[damaged.length - 1] ?? 0) ^ 1;
      const earlier = [
        { state: "", checksum: checksumSealed, sealed }, // 0017's
        { state: sealText(sessionKeys, saved.state, "snapshot state"), checksum: checksumSealed, sealed: null }, // before
        { state: "", checksum: "", sealed: damaged },
      ];
      for (const form of earlier) {
        await db.updateTable("snapshots").set(form).where("session_id", "=", session.id).execute();
        expect(await runtime.store.loadSnapshot(session.id)).toBeUndefined();
        expect(JSON.stringify((await runtime.resume(session.id)).view())).toBe(view); // replayed from the log
      }
    });

    it("an erasure destroys the key: a backup taken before it gives back the other sessions, not the erased one", async () => {
      const keyring = await keys();
      const url = await database("backup");
      const runtime = await runtimeOn(url, keyring);
      const [erasedMarker, keptMarker] = [uniqueMarker("e"), uniqueMarker("k")];
      const erased = await runtime.startSession({ model: "gpt-4o", title: `${erasedMarker} title` });
      const kept = await runtime.startSession({ model: "gpt-4o", title: `${keptMarker} title` });
      for (let n = 0; n < 3; n++) {
        await markedTurn(erased, erasedMarker, n);
        await markedTurn(kept, keptMarker, n);
      }
      await runtime.handoffs.request(erased, { reason: `${erasedMarker} reason` });
      await runtime.handoffs.request(kept, { reason: `${keptMarker} reason` });

      // The backup, taken before the erasure, holds neither session's content in the clear.
      const backup = await takeBackup(engine.name, url, await database("copy"));
      const backupBytes = await readFile(backup.file);
      expect(backupBytes.includes(erasedMarker)).toBe(false);
      expect(backupBytes.includes(keptMarker)).toBe(false);
      expect(backupBytes.includes(erased.id)).toBe(true); // the erased session's rows are in it

      // The turns' snapshots are written in the background (snapshotEvery: 1): one still running as the session
      // is erased seals under a key made again, which its refused write then destroys, after erase returned.
      await runtime.settled();
      await runtime.erase(erased.id, { reason: "test" });
      expect(await keyring.keyring.dataKey({ tenant: "default", sessionId: erased.id }, false)).toBeUndefined();

      // Restored and opened with the same keyring: the kept session reads back whole, the erased one not at all.
      const restored = await runtimeOn(await backup.restore(), keyring);
      expect(JSON.stringify((await restored.resume(kept.id)).view())).toContain(keptMarker);
      const lost = await rejection(restored.resume(erased.id));
      expect(lost.code).toBe("STORAGE");
      expect(lost.message).toMatch(/data key its keyring does not hold/);
      const rows = await rejection(restored.store.readStream(erased.id));
      expect(rows.message).toMatch(/data key its keyring does not hold/);
      // The queued hand-offs: the kept session's reason reads back, the erased one's is gone with its key.
      const reasons = (await restored.handoffs.list()).map((h) => [h.sourceSessionId, h.reason]);
      expect(reasons).toEqual([
        [erased.id, undefined],
        [kept.id, `${keptMarker} reason`],
      ]);
      // The live database, erased, reads as the skeleton.
      const live = await runtime.resume(erased.id);
      expect(live.resumeState().erasedAt).toBeDefined();
      expect(JSON.stringify(live.view())).not.toContain(erasedMarker);
    });

    it("an append to an erased session, or racing its erasure, leaves no data key behind; an erasure of a session not yet written destroys none", async () => {
      const keyring = await keys();
      const store = await openEventStore(await database("orphan"), { keyring: keyring.keyring });
      disposers.push(() => store.close());
      const keyOf = (sessionId: string) => keyring.keyring.dataKey({ tenant: "default", sessionId }, false);
      const erased = newSessionId("erased");
      await store.append(erased, [started(), userMessage("m1", "hello")], { expectedVersion: "no-stream" });
      await store.erase(erased);
      // Sealing the refused batch asks the keyring for a key: the one it made must not outlive the refusal.
      const late = await rejection(store.append(erased, [userMessage("m9", "late")], { expectedVersion: "any" }));
      expect(late.details).toMatchObject({ rule: "session-erased" });
      expect(await keyOf(erased)).toBeUndefined();

      // Appends racing the erasure: each lands before it (and is erased) or is refused; no key is left.
      const raced = newSessionId("raced");
      await store.append(raced, [started()], { expectedVersion: "no-stream" });
      const appends = Array.from({ length: 20 }, (_, i) =>
        store.append(raced, [userMessage(`r${i}`, `racing ${i}`)], { expectedVersion: "any" }),
      );
      const [erasure, ...outcomes] = await Promise.allSettled([store.erase(raced), ...appends]);
      expect(erasure.status).toBe("fulfilled");
      for (const outcome of outcomes) {
        if (outcome.status === "rejected")
          expect(outcome.reason).toMatchObject({ details: { rule: "session-erased" } });
      }
      expect(await keyOf(raced)).toBeUndefined();
      expect(JSON.stringify(await store.readStream(raced))).not.toContain("racing");

      // An erasure of a session not written yet destroys nothing: another process creating it has made
      // (or is making) the key its first append seals under, as it has here.
      const creating = newSessionId("creating");
      await keyring.keyring.dataKey({ tenant: "default", sessionId: creating }, true);
      expect((await rejection(store.erase(creating))).code).toBe("NOT_FOUND");
      expect(await keyOf(creating)).toBeDefined();
    });

    it("a snapshot, a candidate or a hand-off request saved after the erasure (a background snapshot's too) leaves no data key behind", async () => {
      const keyring = await keys();
      const url = await database("sideorphan");
      const store = await openEventStore(url, { keyring: keyring.keyring });
      disposers.push(() => store.close());
      const keyOf = (sessionId: string) => keyring.keyring.dataKey({ tenant: "default", sessionId }, false);
      const sid = newSessionId("side");
      await store.append(sid, [started(), userMessage("m1", "hello")], { expectedVersion: "no-stream" });
      await store.erase(sid);
      // Each seals under a key the keyring no longer has, so it makes one: refused, it must not outlive it.
      await store.saveSnapshot({ sessionId: sid, seq: 2, format: 1, state: '"late"', checksum: "c" });
      expect(await keyOf(sid)).toBeUndefined();
      const candidate = testCandidate(sid, { summary: "late" });
      expect(await store.saveCandidate(candidate)).toBe(false);
      expect(await keyOf(sid)).toBeUndefined();
      const request = store.handoffQueue.insert({
        sourceSessionId: sid,
        successorSessionId: `${sid}-next`,
        reason: "late",
      });
      await expect(request).rejects.toMatchObject({ details: { rule: "session-erased" } });
      expect(await keyOf(sid)).toBeUndefined();

      // A runtime erasing a session whose snapshot an append has just queued: the snapshot runs after.
      const runtime = await runtimeOn(url, keyring);
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append({ role: "user", content: "snapshotted in the background" });
      await runtime.erase(session.id);
      await runtime.settled();
      expect(await keyOf(session.id)).toBeUndefined();
    });

    it("a SessionStore delete destroys the mirror's key: a backup taken before it keeps the other key, not the deleted one", async () => {
      const keyring = await keys();
      const url = await database("mirror");
      const sdk = await openSessionStore({ url, keyring: keyring.keyring });
      disposers.push(() => sdk.close());
      const [deletedMarker, keptMarker] = [uniqueMarker("d"), uniqueMarker("k")];
      const project = `/home/USER/projects/${uniqueMarker("p")}`;
      const deleted = { projectKey: project, sessionId: "0e8f1c1e-0000-4000-8000-000000000001" };
      const kept = { projectKey: project, sessionId: "0e8f1c1e-0000-4000-8000-000000000002" };
      const lines = (marker: string) => [
        { type: "progress", uuid: randomUUID(), timestamp: "2026-12-05T10:00:00.000Z", data: { note: marker } },
        { type: "custom-title", customTitle: `${marker} title`, sessionId: "s" },
      ];
      const keptLines = lines(keptMarker);
      await sdk.append(deleted, lines(deletedMarker));
      await sdk.append(kept, keptLines);
      await sdk.append({ ...deleted, subpath: "subagents/agent-a1" }, lines(deletedMarker));
      await sdk.flush();
      const summaries = async (store: typeof sdk) =>
        (await store.listSessionSummaries(project)).map((summary) => [summary.sessionId, JSON.stringify(summary.data)]);
      expect(await summaries(sdk)).toEqual([
        [deleted.sessionId, expect.stringContaining(`${deletedMarker} title`)],
        [kept.sessionId, expect.stringContaining(`${keptMarker} title`)],
      ]);

      // The backup, taken before the delete, holds neither key's entries or summary in the clear.
      const backup = await takeBackup(engine.name, url, await database("mirrorcopy"));
      const backupBytes = await readFile(backup.file);
      expect([backupBytes.includes(deletedMarker), backupBytes.includes(keptMarker)]).toEqual([false, false]);
      expect(backupBytes.includes(deleted.sessionId)).toBe(true); // the deleted key's rows are in it

      await sdk.delete(deleted);
      expect(await sdk.load(deleted)).toBeNull();

      // Restored and opened with the same keyring: the kept key reads back whole, the deleted one not at all.
      const restored = await openSessionStore({ url: await backup.restore(), keyring: keyring.keyring });
      disposers.push(() => restored.close());
      expect(await restored.load(kept)).toEqual(keptLines);
      const lost = await rejection(restored.load(deleted));
      expect([lost.code, lost.message]).toEqual([
        "STORAGE",
        expect.stringMatching(/does not hold: .* from before a delete that destroyed it/),
      ]);
      expect(await summaries(restored)).toEqual([[kept.sessionId, expect.stringContaining(`${keptMarker} title`)]]);
    });

    it("an erasure that destroyed the key but did not commit is finished by the next erase", async () => {
      const keyring = await keys();
      const url = await database("half");
      const runtime = await runtimeOn(url, keyring);
      const marker = uniqueMarker("f");
      const session = await runtime.startSession({ model: "gpt-4o" });
      await markedTurn(session, marker, 0);
      // The state a process killed between the key's destruction and the erasure's commit leaves.
      await keyring.keyring.destroyKey({ tenant: "default", sessionId: session.id });
      const fresh = await runtimeOn(url, keyring); // this process's runtime still holds the key in memory
      const unreadable = await rejection(fresh.resume(session.id));
      expect(unreadable.message).toMatch(/erase the session again/);
      // Readers of every session (the audit's catch-up, global watchers) go on: they see its skeleton.
      // (PostgreSQL hides a commit from global readers while an older transaction, of any test, is open.)
      const messages = await vi.waitFor(async () => {
        const page = await fresh.store.readAll();
        const found = page.events.filter((e) => e.sessionId === session.id && e.type === "message.appended");
        expect(found).toHaveLength(4);
        return found;
      });
      expect(JSON.stringify(messages)).not.toContain(marker);
      await new AuditReadModels(fresh.store as never).catchUp();
      const result = await fresh.erase(session.id);
      expect(result.erased).toBe(true);
      const after = await fresh.resume(session.id);
      expect(after.resumeState().erasedAt).toBeDefined();
      expect(after.view().messages.map((m) => m.id)).toEqual(["u0", "a0", "t0", "r0"]);
    });

    it("each adapter's opener takes the keyring, and refuses it beside a runtime", async () => {
      const keyring = await keys();
      const url = await database("adapters");
      const marker = uniqueMarker("a");
      const agents = await openAgentsSession({ url, keyring: keyring.keyring, sessionId: "agents-session" });
      await agents.addItems([{ type: "message", role: "user", content: `hello ${marker}` }]);
      await agents.close();
      const again = await openAgentsSession({ url, keyring: keyring.keyring, sessionId: "agents-session" });
      expect(JSON.stringify(await again.getItems())).toContain(marker);
      await again.close();
      const conversation = await openConversation({ url, keyring: keyring.keyring });
      await conversation.close();
      const sdk = await openSessionStore({ url, keyring: keyring.keyring });
      await sdk.close();
      const dump = await dumpDatabase((await runtimeOn(url, keyring)).store as never);
      expect(occurrences(dump, marker)).toEqual([]);
      const runtime = await runtimeOn(url, keyring);
      const beside = await rejection(openAgentsSession({ runtime, keyring: keyring.keyring }));
      expect(beside).toMatchObject({ code: "VALIDATION", details: { path: "keyring" } });
    });
  });
}

describe("the local keyring", () => {
  it("gives every process the one key it keeps, destroys it for good, and checks its master key", async () => {
    const made = await testKeyring();
    try {
      const second = await openLocalKeyring({ directory: made.directory, masterKey: made.masterKey });
      const ref = { tenant: "t", sessionId: "s" };
      expect(await made.keyring.dataKey(ref, false)).toBeUndefined();
      const created = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? made.keyring : second).dataKey(ref, true)),
      );
      const hex = new Set(created.map((k) => Buffer.from(k ?? []).toString("hex")));
      expect(hex.size).toBe(1);
      expect([...hex][0]).toHaveLength(64);
      // Another tenant's session of the same id has a key of its own.
      const other = await made.keyring.dataKey({ tenant: "u", sessionId: "s" }, true);
      expect(Buffer.from(other ?? []).toString("hex")).not.toBe([...hex][0]);
      await second.destroyKey(ref);
      expect(await made.keyring.dataKey(ref, false)).toBeUndefined();
      await second.destroyKey(ref); // again: nothing to do
      const bad = await rejection(openLocalKeyring({ directory: made.directory, masterKey: new Uint8Array(16) }));
      expect(bad.code).toBe("VALIDATION");
      const notKeyring = await rejection(openEventStore(":memory:", { keyring: {} as never }));
      expect(notKeyring.code).toBe("VALIDATION");
    } finally {
      await made.dispose();
    }
  });
});

/** A backup of the database at `url`: its file, and how to restore it (the restored database's URL). */
interface Backup {
  file: string;
  restore(): Promise<string>;
}

/**
 * A backup as an operator takes one: PostgreSQL, `pg_dump` to a plain SQL file (restored with psql into
 * the empty database `into`); SQLite, `VACUUM INTO` a copy of the file (opened where it is).
 */
async function takeBackup(engine: string, url: string, into: string): Promise<Backup> {
  if (engine === "postgres") {
    const file = join(await mkdtemp(join(tmpdir(), "palimpsest-dump-")), "dump.sql");
    await run("pg_dump", ["--no-owner", "--file", file, url]);
    return {
      file,
      restore: async () => {
        await run("psql", ["--quiet", "--set", "ON_ERROR_STOP=1", "--file", file, into]);
        return into;
      },
    };
  }
  const db = new Database(url);
  db.prepare("VACUUM INTO ?").run(into);
  db.close();
  return { file: into, restore: async () => into };
}
