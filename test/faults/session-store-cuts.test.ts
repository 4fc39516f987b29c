/**
 * A SessionStore `delete` and a `palimpsest erase` of a mirrored session SIGKILLed at chosen cut points,
 * on a SQLite file and on PostgreSQL: a worker process stops dead at one statement (statement-cut.ts) and
 * is killed there; then a freshly opened store must show the session whole or gone, never in between:
 * `load` of the main key and of each subpath, `listSubkeys` and `listSessions` agree, and when the key is
 * gone every Palimpsest session folded from it is erased and its content is nowhere in the database.
 * Again on stores encrypting with a local keyring: there a session gone has no data key left (of its keys'
 * generations or of its Palimpsest sessions), and a delete cut after its data keys' destruction, before
 * its entries' deletion, shows it gone too.
 */
import { join } from "node:path";
import type { SessionKey, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore, type PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import type { Keyring, MirrorKey } from "@palimpsest/core";
import { MirrorLog, type OpenedEventStore } from "@palimpsest/store";
import { afterAll, describe, expect, it } from "vitest";
import { mirrorKeyName } from "../../packages/store/src/mirror/mirror-seal.ts";
import { TranscriptWriter, text, toolResult, toolUse } from "../claude-agent-sdk/claude-code-lines.ts";
import { runPalimpsest } from "../cli/harness.ts";
import { dumpDatabase, occurrences } from "../support/database-scan.ts";
import { type TestKeyring, testKeyring } from "../support/test-keyring.ts";
import { integrityProblems } from "./fault-checks.ts";
import { faultDatabases } from "./fault-databases.ts";
import { Worker, type WorkerScript } from "./fault-process.ts";
import type { CutRequest } from "./session-store-cut-worker.ts";
import { CUT_REACHED, type CutPoint } from "./statement-cut.ts";
import { workerKeys } from "./worker-keys.ts";

/** Through tsx: the worker loads the SDK (for its summary fold) and runs the CLI's sources. */
const script: WorkerScript = {
  path: join(import.meta.dirname, "session-store-cut-worker.ts"),
  execArgv: ["--import", "tsx"],
  dispose: async () => {},
};

const SUBPATHS = ["subagents/agent-cut-a", "subagents/agent-cut-b"];

/** A mirrored session: its key, the lines of its main key and subpaths, and the Palimpsest sessions folded from them. */
interface Seeded {
  key: SessionKey;
  marker: string;
  main: SessionStoreEntry[];
  subs: SessionStoreEntry[][];
  sessions: string[];
}

/** A fresh SessionStore on `url`, encrypting with `keyring` when given. */
const storeOn = (url: string, keyring: Keyring | undefined) =>
  openSessionStore({ url, settleMs: 60_000, ...(keyring === undefined ? {} : { keyring }) });

/** Appends a conversation (and two subagents' beside it), every text holding `marker`, and folds it. */
async function seed(url: string, marker: string, keyring: Keyring | undefined): Promise<Seeded> {
  const store = await storeOn(url, keyring);
  try {
    const w = new TranscriptWriter();
    const key = { projectKey: "/home/USER/projects/cuts", sessionId: w.sessionId };
    const main = [
      w.user(`${marker} find the config`),
      w.assistant("msg_1", text(`${marker} looking`), toolUse("toolu_1", "Grep", { pattern: marker })),
      w.user([toolResult("toolu_1", `${marker} found in a.txt`)]),
      w.assistant("msg_2", text(`${marker} it is in a.txt`)),
    ];
    await store.append(key, main);
    // A subagent's transcript, as Claude Code writes it: sidechain lines carrying the agent's id.
    const subs = SUBPATHS.map((subpath, i) => {
      const side = new TranscriptWriter(key.sessionId);
      const agent = { isSidechain: true, agentId: subpath.slice("subagents/agent-".length) };
      return [
        { ...side.user(`${marker} subagent task ${i}`), ...agent },
        { ...side.assistant(`msg_s${i}`, text(`${marker} done ${i}`)), ...agent },
      ];
    });
    for (const [i, subpath] of SUBPATHS.entries()) await store.append({ ...key, subpath }, subs[i] ?? []);
    const sessions = await store.sessionIds(key);
    for (const subpath of SUBPATHS) sessions.push(...(await store.sessionIds({ ...key, subpath })));
    expect(sessions.length).toBeGreaterThanOrEqual(3);
    return { key, marker, main, subs, sessions };
  } finally {
    await store.close();
  }
}

/**
 * Whether `keyring` holds a data key of the seeded session: of a generation (up to the current one) of its
 * main key or a subpath, or of a Palimpsest session folded from them.
 */
async function holdsKeys(keyring: Keyring, log: MirrorLog, s: Seeded): Promise<boolean> {
  const keys: MirrorKey[] = [undefined, ...SUBPATHS].map((subpath) => ({
    project: s.key.projectKey,
    session: s.key.sessionId,
    ...(subpath === undefined ? {} : { subpath }),
  }));
  const names = [...s.sessions];
  for (const key of keys) {
    const generation = (await log.key(key))?.generation ?? 0;
    for (let g = 0; g <= generation; g++) names.push(mirrorKeyName(key, g));
  }
  for (const sessionId of names)
    if ((await keyring.dataKey({ tenant: "default", sessionId }, false)) !== undefined) return true;
  return false;
}

/** What a store shows of the seeded session, and what the database (and encrypted, the keyring) holds of it. */
async function observe(store: PalimpsestSessionStore, s: Seeded, keyring: Keyring | undefined) {
  const events = store.runtime.store as OpenedEventStore;
  const erased: boolean[] = [];
  for (const id of s.sessions) erased.push((await events.getSession(id))?.erasedAt !== undefined);
  return {
    ...(keyring === undefined ? {} : { keysLeft: await holdsKeys(keyring, new MirrorLog(events), s) }),
    main: await store.load(s.key),
    subkeys: (await store.listSubkeys(s.key)).sort(),
    subs: await Promise.all(SUBPATHS.map((subpath) => store.load({ ...s.key, subpath }))),
    listed: (await store.listSessions(s.key.projectKey)).some((row) => row.sessionId === s.key.sessionId),
    erased,
    contentLeft: occurrences(await dumpDatabase(events), s.marker).length > 0,
  };
}

/** What observe saw. */
type Observed = Awaited<ReturnType<typeof observe>>;

/**
 * The seeded session as it was: every key loadable and listed, no session erased, its content stored
 * (encrypted: its keys kept, and its content in no plain text).
 */
const untouched = (s: Seeded, encrypted: boolean): Observed => ({
  ...(encrypted ? { keysLeft: true } : {}),
  main: s.main,
  subkeys: SUBPATHS,
  subs: s.subs,
  listed: true,
  erased: s.sessions.map(() => false),
  contentLeft: !encrypted,
});

/** The seeded session gone: no key loads or is listed, every session folded from it erased, no content (or key) left. */
const gone = (s: Seeded, encrypted: boolean): Observed => ({
  ...(encrypted ? { keysLeft: false } : {}),
  main: null,
  subkeys: [],
  subs: SUBPATHS.map(() => null),
  listed: false,
  erased: s.sessions.map(() => true),
  contentLeft: false,
});

/** Runs the operation in a worker that stops dead at `cut`, SIGKILLs it there, and says whether it got there. */
async function killAtCut(run: CutRequest["run"], url: string, cut: CutPoint, keys?: TestKeyring): Promise<void> {
  const worker = new Worker(script);
  try {
    await worker.send({
      url,
      cut,
      run,
      ...(keys === undefined ? {} : { keys: workerKeys(keys) }),
    } satisfies CutRequest);
    const reached = await worker.wroteOnStderr(CUT_REACHED);
    expect(reached, `the worker never reached the cut ${cut.sql}: ${worker.stderr}`).toBe(true);
  } finally {
    await worker.kill();
  }
}

/** Each cut: the operation, where it is cut, and the state a fresh store must then show. */
const CUTS: {
  name: string;
  run: (s: Seeded) => CutRequest["run"];
  cut: CutPoint;
  after: (s: Seeded, encrypted: boolean) => Observed;
}[] = [
  {
    name: "delete of a main key, killed after the main key's drop and before its subpaths'",
    run: (s) => ({ op: "delete", key: s.key }),
    // The first write naming a subpath: on the main key's (the drop's) heels.
    cut: { sql: '^(update|delete from|insert into) "mirror_', parameter: "^subagents/agent-cut-" },
    after: untouched,
  },
  {
    name: "delete of a main key, killed after the keys' drop and before the first session's erasure",
    run: (s) => ({ op: "delete", key: s.key }),
    cut: { sql: '^update "sessions"' },
    after: gone,
  },
  {
    // Plain, the entries' deletion is part of the drop's transaction; encrypted, it follows the data
    // keys' destruction, after the drop committed.
    name: "delete of a main key, killed at its entries' deletion",
    run: (s) => ({ op: "delete", key: s.key }),
    cut: { sql: '^delete from "mirror_entries"' },
    after: (s, encrypted) => (encrypted ? gone : untouched)(s, encrypted),
  },
  {
    name: "palimpsest erase of the mirrored session, killed before its first write to the mirror",
    run: (s) => ({ op: "cli-erase", session: s.key.sessionId }),
    cut: { sql: '^(update|delete from) "mirror_' },
    after: untouched,
  },
  {
    name: "palimpsest erase of the mirrored session, killed after the keys' drop and before the session's erasure",
    run: (s) => ({ op: "cli-erase", session: s.key.sessionId }),
    cut: { sql: '^update "sessions"' },
    after: gone,
  },
];

for (const encrypted of [false, true])
  for (const database of faultDatabases(encrypted ? "sdkcutsenc" : "sdkcuts")) {
    const layout = `${database.name}${encrypted ? ", encrypted" : ""}`;
    describe.skipIf(database.skip !== undefined)(`a mirrored session's erasure under SIGKILL (${layout})`, () => {
      let keys: TestKeyring | undefined;
      afterAll(async () => {
        await database.dispose();
        await keys?.dispose();
      });
      let url: string | undefined;

      for (const [n, scenario] of CUTS.entries()) {
        it(`${scenario.name}: a fresh store shows it whole or gone, and finishes it`, { timeout: 60_000 }, async () => {
          url ??= await database.create();
          if (encrypted) keys ??= await testKeyring();
          const keyring = keys?.keyring;
          const seeded = await seed(url, `cut-marker-${n}-${Date.now()}`, keyring);
          await killAtCut(scenario.run(seeded), url, scenario.cut, keys);
          const fresh = await storeOn(url, keyring);
          try {
            expect(await observe(fresh, seeded, keyring)).toEqual(scenario.after(seeded, encrypted));
            // Whatever the kill left, deleting again (or erasing again) leaves it gone.
            if (scenario.run(seeded).op === "delete") await fresh.delete(seeded.key);
            else {
              const env =
                keys === undefined
                  ? {}
                  : {
                      PALIMPSEST_KEYRING: keys.directory,
                      PALIMPSEST_MASTER_KEY: Buffer.from(keys.masterKey).toString("base64"),
                    };
              const again = await runPalimpsest(["--db", url, "--json", "erase", seeded.key.sessionId, "--yes"], {
                env,
              });
              expect(again.code, again.stderr).toBe(0);
            }
            expect(await observe(fresh, seeded, keyring)).toEqual(gone(seeded, encrypted));
          } finally {
            await fresh.close();
          }
          expect(integrityProblems(url)).toEqual([]);
        });
      }
    });
  }
