/**
 * openSessionStore under faults, on a real SQLite file and on PostgreSQL: a child process mirroring
 * real Claude Code batches is SIGKILLed at random points (inside an append, a fold, a delete), then a
 * fresh openSessionStore on the same database must hold every acknowledged batch exactly once, store a
 * retried batch with uuids once (one of uuid-less entries only, each time it comes), fold to the
 * importer's view of what `load` returns, and finish or let a retry finish an interrupted delete. Two
 * processes appending to one key both land, each entry once. The kills run again on a store encrypting
 * with a local keyring: there a finished delete also leaves no data key of the key or of its sessions. On
 * PostgreSQL an append whose backend is terminated fails retryable and its retry stores it once.
 */
import { join } from "node:path";
import type { SessionKey, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore, type PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import type { Keyring } from "@palimpsest/core";
import { type MirrorKey, StorageError } from "@palimpsest/core";
import { MirrorLog, type OpenedEventStore } from "@palimpsest/store";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { mirrorKeyName } from "../../packages/store/src/mirror/mirror-seal.ts";
import { fileNameOf, importerViews, jsonLines, mirrorViews, unrevised } from "../claude-agent-sdk/claude-code-files.ts";
import { dumpDatabase, occurrences } from "../support/database-scan.ts";
import { waitingForLock } from "../support/lock-wait.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { HAVE_TRANSCRIPTS, TRANSCRIPTS_DIR } from "../support/real-transcripts.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";
import { type TestKeyring, testKeyring } from "../support/test-keyring.ts";
import { integrityProblems } from "./fault-checks.ts";
import { faultDatabases } from "./fault-databases.ts";
import { Worker, type WorkerMessage, type WorkerScript } from "./fault-process.ts";
import { FaultRandom } from "./fault-random.ts";
import { faultCount, faultSeed } from "./fault-scale.ts";
import { terminateBackends, withApplicationName } from "./postgres-fault-writer.ts";
import type { StoreOperation, WorkerRequest } from "./session-store-worker.ts";
import { workerKeys } from "./worker-keys.ts";

const seed = faultSeed();
const ROUNDS = faultCount(10, 100);

/** Through tsx: the worker loads the SDK (for its summary fold), which a bundle would have to carry. */
const script: WorkerScript = {
  path: join(import.meta.dirname, "session-store-worker.ts"),
  execArgv: ["--import", "tsx"],
  dispose: async () => {},
};

/** Real Claude Code main transcripts with enough lines to cut into batches. */
const SOURCES = HAVE_TRANSCRIPTS
  ? [
      "claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl",
      "claude-code/spotter/258c7280-ae70-4798-800f-63464d01a85d.jsonl",
      "claude-code/claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl",
    ].map((file) => jsonLines(join(TRANSCRIPTS_DIR, file)))
  : [];

/**
 * The lines with `marker` written into every message text (user prompts, text blocks), so a scan of the
 * database finds each place their content went: the entries, and the Palimpsest sessions folded from them.
 */
function marked(lines: readonly Record<string, unknown>[], marker: string): SessionStoreEntry[] {
  return lines.map((line) => {
    const copy = structuredClone(line) as SessionStoreEntry & { message?: { content?: unknown } };
    const message = copy.message;
    if (message !== undefined && typeof message.content === "string") message.content = `${marker} ${message.content}`;
    else if (message !== undefined && Array.isArray(message.content)) {
      for (const block of message.content as { type?: string; text?: string }[]) {
        if (block.type === "text" && typeof block.text === "string") block.text = `${marker} ${block.text}`;
      }
    }
    return copy;
  });
}

const toMirror = (key: SessionKey): MirrorKey => ({
  project: key.projectKey,
  session: key.sessionId,
  ...(key.subpath === undefined ? {} : { subpath: key.subpath }),
});

/** Opens a fresh store on `url` (encrypting with `keys` when given), its fold errors collected. */
async function freshStore(url: string, keys?: TestKeyring) {
  const foldErrors: unknown[] = [];
  const store = await openSessionStore({
    url,
    settleMs: 60_000,
    onError: (error) => foldErrors.push(error),
    ...(keys === undefined ? {} : { keyring: keys.keyring }),
  });
  const events = store.runtime.store as OpenedEventStore;
  return { store, events, log: new MirrorLog(events), foldErrors, keyring: keys?.keyring };
}

/** Whether `keyring` still holds a data key named `sessionId` (a session's, or a mirrored key's generation's). */
const holdsKey = async (keyring: Keyring, sessionId: string) =>
  (await keyring.dataKey({ tenant: "default", sessionId }, false)) !== undefined;

/** After a flush, each thread's Palimpsest view equals what the importer makes of the key's `load()`. */
async function expectImporterViews(store: PalimpsestSessionStore, log: MirrorLog, key: SessionKey, where: string) {
  await store.flush();
  const entries = (await store.load(key)) ?? [];
  const mirrorKey = toMirror(key);
  const generation = (await log.key(mirrorKey))?.generation ?? 0;
  const expected = await importerViews(entries.map((e) => JSON.stringify(e)).join("\n"), fileNameOf(mirrorKey));
  const actual = await mirrorViews(store.runtime, mirrorKey, generation, expected.keys());
  for (const [externalId, view] of expected) {
    expect(actual.get(externalId)?.problems, `${where}: ${externalId}`).toEqual([]);
    // Revised messages are `<id>~r<n>` in the mirror, `<id>` in the importer: compared with the suffix stripped.
    expect(unrevised(actual.get(externalId)?.messages ?? []), `${where}: ${externalId}`).toEqual(view.messages);
  }
  return expected.size;
}

/**
 * A key's content is gone: load null, not listed, every session folded from it erased, no marker left
 * anywhere; encrypted, no data key left of any of its generations or sessions.
 */
async function expectErased(
  fresh: Awaited<ReturnType<typeof freshStore>>,
  key: SessionKey,
  marker: string,
  where: string,
) {
  const { store, events, log, keyring } = fresh;
  expect(await store.load(key), where).toBeNull();
  expect(await store.listSessions(key.projectKey)).not.toContainEqual(
    expect.objectContaining({ sessionId: key.sessionId }),
  );
  const row = await log.key(toMirror(key));
  const sessions = await log.sessionsOf(toMirror(key), (row?.generation ?? 0) + 1);
  for (const id of sessions) expect((await events.getSession(id))?.erasedAt, `${where}: ${id}`).toBeDefined();
  // The marker, and its random nine digits: the search index keeps them as a term of their own too, and
  // SQLite's stores a term after the prefix it shares with the term before it (another round's marker),
  // so the whole marker need not show where its terms are.
  const dump = await dumpDatabase(events);
  for (const needle of [marker, marker.slice(marker.lastIndexOf("-") + 1)]) {
    expect(occurrences(dump, needle).slice(0, 1), `${where}: ${needle}`).toEqual([]);
  }
  if (keyring !== undefined) {
    const generations = Array.from({ length: (row?.generation ?? 0) + 2 }, (_, g) => g);
    const names = [...generations.map((g) => mirrorKeyName(toMirror(key), g)), ...sessions];
    const kept = [];
    for (const name of names) if (await holdsKey(keyring, name)) kept.push(name);
    expect(kept, `${where}: data keys left`).toEqual([]);
  }
  return sessions.length;
}

interface Plan {
  key: SessionKey;
  marker: string;
  operations: StoreOperation[];
  batches: SessionStoreEntry[][];
}

/** A round's operations: the batches appended in order, flushes between some, a delete at the end of some. */
function plan(random: FaultRandom, round: number): Plan {
  const source = random.pick(SOURCES);
  const count = random.int(120, Math.min(500, source.length));
  const marker = `kill-marker-${seed}-${round}-${random.int(100_000_000, 999_999_999)}`;
  const lines = marked(source.slice(0, count), marker);
  const key = { projectKey: "kills", sessionId: `round-${round}` };
  const operations: StoreOperation[] = [];
  const batches: SessionStoreEntry[][] = [];
  for (let from = 0; from < lines.length; ) {
    const to = Math.min(lines.length, from + (random.next() < 0.3 ? random.int(1, 5) : random.int(20, 150)));
    batches.push(lines.slice(from, to));
    operations.push({ op: "append", key, entries: lines.slice(from, to) });
    if (random.next() < 0.3) operations.push({ op: "flush" });
    from = to;
  }
  operations.push({ op: "flush" });
  if (random.next() < 0.5) operations.push({ op: "delete", key });
  return { key, marker, operations, batches };
}

/** Typical durations (ms) of each operation, from the workers' reports: the kill's delay scales with them. */
const durations: Record<StoreOperation["op"], number> = { append: 10, flush: 50, delete: 30 };

/** Runs a plan in a worker and kills it at a random point; what it acknowledged and what was in flight. */
async function runAndKill(url: string, random: FaultRandom, p: Plan, keys?: TestKeyring) {
  const kinds = new Set(p.operations.map((o) => o.op));
  const kind = random.weighted<StoreOperation["op"]>([
    ["append", 2],
    ["flush", 1.5],
    ["delete", kinds.has("delete") ? 2 : 0],
  ]);
  const candidates = p.operations.flatMap((o, n) => (o.op === kind ? [n] : []));
  const killAt = random.pick(candidates);
  const worker = new Worker(script);
  const send = (request: WorkerRequest) => worker.send(request);
  await send({ t: "open", url, ...(keys === undefined ? {} : { keys: workerKeys(keys) }) });
  const ended = new Set<number>();
  const begun = new Set<number>();
  const foldErrors: string[] = [];
  let killed = false;
  const take = (m: WorkerMessage) => {
    if (m.t === "begin") begun.add(m.n as number);
    if (m.t === "end") {
      ended.add(m.n as number);
      const op = m.op as StoreOperation["op"];
      durations[op] = (durations[op] + (m.ms as number)) / 2;
    }
    if (m.t === "fold-error") foldErrors.push(String(m.message));
    if (m.t === "error") throw new Error(`worker failed: ${String(m.message)}\n${worker.stderr}`);
  };
  for (;;) {
    const m = await worker.next();
    if (m === undefined) throw new Error(`worker exited before opening: ${worker.stderr}`);
    take(m);
    if (m.t === "opened") break;
  }
  for (const [n, operation] of p.operations.entries()) await send({ t: "run", n, operation });
  for (;;) {
    const m = await worker.next();
    if (m === undefined) break;
    take(m);
    if ((m.t === "begin" && m.n === killAt) || (m.t === "end" && m.n === p.operations.length - 1)) {
      // The fault's timing, not a synchronization: a seeded delay of up to 1.5 times such an operation's
      // duration, so the kill lands before, inside or after it (or in the background fold it queued).
      await new Promise((resolve) => setTimeout(resolve, random.next() * 1.5 * durations[kind]));
      await worker.kill();
      killed = true;
      break;
    }
  }
  for (const m of worker.drain()) take(m);
  expect(killed, worker.stderr).toBe(true);
  expect(foldErrors).toEqual([]);
  const inFlight = [...begun].find((n) => !ended.has(n));
  return { ended, inFlight };
}

const flat = (batches: readonly SessionStoreEntry[][]) => batches.flat();

if (!HAVE_TRANSCRIPTS) console.warn("\n⚠ session-store-kills: the shared transcripts are absent, SKIPPED\n");

for (const encrypted of [false, true])
  for (const database of faultDatabases(encrypted ? "sdkkillsenc" : "sdkkills")) {
    describe.skipIf(database.skip !== undefined || !HAVE_TRANSCRIPTS)(
      `openSessionStore under SIGKILL (${database.name}${encrypted ? ", encrypted" : ""}, seed ${seed})`,
      () => {
        let keys: TestKeyring | undefined;
        afterAll(async () => {
          await database.dispose();
          await keys?.dispose();
        });
        let url: string;

        it(`${ROUNDS} children killed inside an append, a fold or a delete: a fresh store holds each acknowledged batch once, retries with uuids store once, folds to the importer's view, and deletes finish`, {
          timeout: 60_000 + ROUNDS * 15_000,
        }, async () => {
          url = await database.create();
          if (encrypted) keys = await testKeyring();
          const random = new FaultRandom(seed);
          const outcomes: Record<string, number> = {};
          const count = (what: string) => {
            outcomes[what] = (outcomes[what] ?? 0) + 1;
          };
          const started = performance.now();
          for (let round = 0; round < ROUNDS; round++) {
            const p = plan(random, round);
            const where = `round ${round}, seed ${seed}`;
            const { ended, inFlight } = await runAndKill(url, random, p, keys);
            count(
              `killed in ${inFlight === undefined ? "nothing (between operations, or a background fold)" : p.operations[inFlight]?.op}`,
            );
            const fresh = await freshStore(url, keys);
            try {
              const appends = p.operations.flatMap((o, n) => (o.op === "append" ? [n] : []));
              const acked = appends.filter((n) => ended.has(n)).map((n) => appends.indexOf(n));
              const deleteAt = p.operations.findIndex((o) => o.op === "delete");
              const loaded = await fresh.store.load(p.key);
              if (deleteAt >= 0 && (ended.has(deleteAt) || (inFlight === deleteAt && loaded === null))) {
                // The delete committed its drop: openSessionStore itself erased what it left (eraseLeftovers).
                const sessions = await expectErased(fresh, p.key, p.marker, `${where}: after the kill`);
                count(
                  ended.has(deleteAt) ? "delete done" : `delete cut short, finished on open (${sessions} sessions)`,
                );
                await fresh.store.delete(p.key);
                await expectErased(fresh, p.key, p.marker, `${where}: delete retried`);
                continue;
              }
              // Every acknowledged batch exactly once, in order; the batch in flight wholly or not at all.
              const acknowledged = flat(acked.map((i) => p.batches[i] as SessionStoreEntry[]));
              const flightBatch = inFlight === undefined ? -1 : appends.indexOf(inFlight);
              const withFlight =
                flightBatch < 0 ? acknowledged : [...acknowledged, ...(p.batches[flightBatch] as SessionStoreEntry[])];
              const landed = JSON.stringify(loaded ?? []) === JSON.stringify(withFlight) && flightBatch >= 0;
              expect(landed || JSON.stringify(loaded ?? []) === JSON.stringify(acknowledged), where).toBe(true);
              if (flightBatch >= 0) count(landed ? "append in flight had landed" : "append in flight had not landed");
              // Retry the batch in flight (stored once), then again as a retry after its first attempt
              // committed; with none in flight, the last acknowledged batch. A batch with uuid entries is
              // stored once however often it comes; one of uuid-less entries only is stored each time it
              // comes (the SDK's contract: they are appended without dedup).
              const retried = flightBatch >= 0 ? [flightBatch, flightBatch] : acked.slice(-1);
              let expected = landed ? withFlight : acknowledged;
              for (const i of retried) {
                const batch = p.batches[i] as SessionStoreEntry[];
                await fresh.store.append(p.key, batch);
                if (batch.every((e) => e.uuid === undefined) || expected.length < withFlight.length) {
                  expected = [...expected, ...batch];
                }
              }
              expect(await fresh.store.load(p.key), where).toEqual(expected.length === 0 ? null : expected);
              if (withFlight.length > 0) await expectImporterViews(fresh.store, fresh.log, p.key, where);
              if (inFlight === deleteAt && deleteAt >= 0) {
                // The delete was cut before its drop committed: a retry erases everything.
                await fresh.store.delete(p.key);
                await expectErased(fresh, p.key, p.marker, `${where}: delete retried`);
                count("delete cut before its drop, retried");
              }
              expect(fresh.foldErrors).toEqual([]);
            } finally {
              await fresh.store.close();
            }
            expect(integrityProblems(url)).toEqual([]);
          }
          const ms = Math.round(performance.now() - started);
          const what = `${database.name}${encrypted ? ", encrypted" : ""}`;
          console.log(`session store kills (${what}, seed ${seed}): ${JSON.stringify(outcomes)}, ${ms} ms`);
        });

        it.skipIf(encrypted)(
          "two processes appending different batches to one key at once: both stored, each entry once, each process's order kept",
          {
            timeout: 120_000,
          },
          async () => {
            url ??= await database.create();
            const random = new FaultRandom(seed + 1);
            const lines = marked((SOURCES[0] ?? []).slice(0, 400), `two-${seed}`);
            const key = { projectKey: "two-processes", sessionId: `shared-${seed}` };
            // What two processes write to one session at once: one mirrors the conversation (its user,
            // assistant and system lines, in order), the other the lines around it (progress, file history
            // snapshots...), as another process titling or tagging a running session does. Each process's
            // lines in batches of 1..40.
            const isMessage = (e: SessionStoreEntry) => ["user", "assistant", "system"].includes(e.type);
            const mine = [lines.filter(isMessage), lines.filter((e) => !isMessage(e))].map((own) => {
              const batches: SessionStoreEntry[][] = [];
              for (let from = 0; from < own.length; ) {
                const to = Math.min(own.length, from + random.int(1, 40));
                batches.push(own.slice(from, to));
                from = to;
              }
              return batches;
            });
            const batches = mine.flat();
            expect(mine.map((own) => own.length).every((n) => n > 1)).toBe(true);
            const workers = mine.map(() => new Worker(script));
            try {
              await Promise.all(workers.map((w) => w.send({ t: "open", url } satisfies WorkerRequest)));
              for (const w of workers) expect((await w.next())?.t).toBe("opened");
              // Both queue every append at once: their calls interleave at the database.
              await Promise.all(
                workers.map(async (w, i) => {
                  for (const [n, entries] of (mine[i] ?? []).entries()) {
                    await w.send({ t: "run", n, operation: { op: "append", key, entries } } satisfies WorkerRequest);
                  }
                  await w.send({ t: "exit" } satisfies WorkerRequest);
                }),
              );
              const exits = await Promise.all(workers.map((w) => w.exited));
              const said = workers.flatMap((w) => w.drain());
              expect(said.filter((m) => m.t === "error" || m.t === "fold-error")).toEqual([]);
              expect(exits.map((e) => e.code)).toEqual([0, 0]);
            } finally {
              for (const w of workers) if (w.child.exitCode === null) await w.kill();
            }
            const fresh = await freshStore(url);
            try {
              const loaded = (await fresh.store.load(key)) ?? [];
              const text = (e: SessionStoreEntry) => JSON.stringify(e);
              expect(loaded.map(text).sort()).toEqual(lines.map(text).sort());
              for (const own of mine) {
                const ownTexts = new Set(flat(own).map(text));
                expect(loaded.filter((e) => ownTexts.has(text(e))).map(text)).toEqual(flat(own).map(text));
              }
              // Each batch is one transaction: its entries lie together in the log.
              const position = new Map(loaded.map((e, i) => [text(e), i]));
              for (const batch of batches) {
                const at = batch.map((e) => position.get(text(e)) ?? -1);
                expect(at).toEqual(at.map((_, i) => (at[0] ?? 0) + i));
              }
              await expectImporterViews(fresh.store, fresh.log, key, "two processes");
              expect(fresh.foldErrors).toEqual([]);
            } finally {
              await fresh.store.close();
            }
          },
        );
      },
    );
  }

const server = postgresServer();

/** Where a terminated call waits: what the other connection holds, and the call that waits on it. */
const TERMINATIONS = [
  {
    name: "an append waiting inside its transaction for the key's row lock",
    hold: "SELECT 1 FROM mirror_keys WHERE project_key = $1 AND session_key = $2 AND subpath = '' FOR UPDATE",
    call: "append",
  },
  {
    name: "an append waiting at its first statement (the key's row insert)",
    hold: "LOCK TABLE mirror_keys IN ACCESS EXCLUSIVE MODE",
    call: "append",
  },
  {
    name: "a load waiting to read the entries",
    hold: "LOCK TABLE mirror_entries IN ACCESS EXCLUSIVE MODE",
    call: "load",
  },
] as const;

describe.skipIf("skip" in server || !HAVE_TRANSCRIPTS)(
  "openSessionStore on PostgreSQL: a backend terminated under a call",
  () => {
    for (const [index, scenario] of TERMINATIONS.entries()) {
      it(`${scenario.name}: made again by the store once the connection dropped, the call lands once`, async () => {
        if ("skip" in server) return;
        const database = await createScratchDatabase(server.url, "sdkterm");
        const name = new URL(database.url).pathname.slice(1);
        const app = `palimpsest-sdk-terminated-${index}`;
        const admin = new pg.Client({ connectionString: server.url });
        const locker = new pg.Client({ connectionString: database.url });
        await admin.connect();
        const foldErrors: unknown[] = [];
        const store = await openSessionStore({
          url: withApplicationName(database.url, app),
          settleMs: 60_000,
          onError: (error) => foldErrors.push(error),
        });
        // The server says when the call is waiting for the lock.
        const callWaits = () => waitingForLock(admin, name, app, `the ${scenario.call}`);
        try {
          await locker.connect();
          const lines = marked((SOURCES[0] ?? []).slice(0, 500), `terminated-${seed}`);
          const key = { projectKey: "terminations", sessionId: "terminated" };
          await store.append(key, lines.slice(0, 100));
          await store.flush();
          await locker.query("BEGIN");
          await locker.query(scenario.hold, scenario.hold.includes("$1") ? [key.projectKey, key.sessionId] : []);
          const call = (scenario.call === "append" ? store.append(key, lines.slice(100)) : store.load(key)).catch(
            (error: unknown) => error,
          );
          await callWaits();
          expect(await terminateBackends(admin, name, app)).toBeGreaterThan(0);
          // A dropped connection is the store's to retry: its next attempt waits for the lock again.
          await callWaits();
          await locker.query("ROLLBACK");
          expect(await call).toEqual(scenario.call === "append" ? undefined : lines.slice(0, 100));
          expect(await store.load(key)).toEqual(scenario.call === "append" ? lines : lines.slice(0, 100));
          await store.append(key, lines.slice(100)); // the SDK's retry of the same batch: stored once
          await store.append(key, lines.slice(100));
          expect(await store.load(key)).toEqual(lines);
          const events = store.runtime.store as OpenedEventStore;
          await expectImporterViews(store, new MirrorLog(events), key, scenario.name);
          // A background fold whose connection was terminated too failed retryable; the next fold caught up.
          for (const e of foldErrors) expect(e instanceof StorageError && e.details.retryable, String(e)).toBe(true);
        } finally {
          await store.close();
          await locker.end().catch(() => undefined);
          await admin.end();
          await database.drop();
        }
      });
    }
  },
);
