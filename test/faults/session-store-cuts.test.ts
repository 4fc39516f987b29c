/**
 * A SessionStore `delete` and a `palimpsest erase` of a mirrored session SIGKILLed at chosen cut points,
 * on a SQLite file and on PostgreSQL: a worker process stops dead at one statement (statement-cut.ts) and
 * is killed there; then a freshly opened store must show the session whole or gone, never in between:
 * `load` of the main key and of each subpath, `listSubkeys` and `listSessions` agree, and when the key is
 * gone every Palimpsest session folded from it is erased and its content is nowhere in the database.
 */
import { join } from "node:path";
import type { SessionKey, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore, type PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import type { OpenedEventStore } from "@palimpsest/store";
import { afterAll, describe, expect, it } from "vitest";
import { TranscriptWriter, text, toolResult, toolUse } from "../claude-agent-sdk/claude-code-lines.ts";
import { runPalimpsest } from "../cli/harness.ts";
import { dumpDatabase, occurrences } from "../support/database-scan.ts";
import { integrityProblems } from "./fault-checks.ts";
import { faultDatabases } from "./fault-databases.ts";
import { Worker, type WorkerScript } from "./fault-process.ts";
import type { CutRequest } from "./session-store-cut-worker.ts";
import { CUT_REACHED, type CutPoint } from "./statement-cut.ts";

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

/** Appends a conversation (and two subagents' beside it), every text holding `marker`, and folds it. */
async function seed(url: string, marker: string): Promise<Seeded> {
  const store = await openSessionStore({ url, settleMs: 60_000 });
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

/** What a store shows of the seeded session, and what the database holds of it. */
async function observe(store: PalimpsestSessionStore, s: Seeded) {
  const events = store.runtime.store as OpenedEventStore;
  const erased: boolean[] = [];
  for (const id of s.sessions) erased.push((await events.getSession(id))?.erasedAt !== undefined);
  return {
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

/** The seeded session as it was: every key loadable and listed, no session erased, its content stored. */
const untouched = (s: Seeded): Observed => ({
  main: s.main,
  subkeys: SUBPATHS,
  subs: s.subs,
  listed: true,
  erased: s.sessions.map(() => false),
  contentLeft: true,
});

/** The seeded session gone: no key loads or is listed, every session folded from it erased, no content left. */
const gone = (s: Seeded): Observed => ({
  main: null,
  subkeys: [],
  subs: SUBPATHS.map(() => null),
  listed: false,
  erased: s.sessions.map(() => true),
  contentLeft: false,
});

/** Runs the operation in a worker that stops dead at `cut`, SIGKILLs it there, and says whether it got there. */
async function killAtCut(run: CutRequest["run"], url: string, cut: CutPoint): Promise<void> {
  const worker = new Worker(script);
  try {
    await worker.send({ url, cut, run } satisfies CutRequest);
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
  after: (s: Seeded) => Observed;
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

for (const database of faultDatabases("sdkcuts")) {
  describe.skipIf(database.skip !== undefined)(`a mirrored session's erasure under SIGKILL (${database.name})`, () => {
    afterAll(() => database.dispose());
    let url: string | undefined;

    for (const [n, scenario] of CUTS.entries()) {
      it(`${scenario.name}: a fresh store shows it whole or gone, and finishes it`, { timeout: 60_000 }, async () => {
        url ??= await database.create();
        const seeded = await seed(url, `cut-marker-${n}-${Date.now()}`);
        await killAtCut(scenario.run(seeded), url, scenario.cut);
        const fresh = await openSessionStore({ url, settleMs: 60_000 });
        try {
          expect(await observe(fresh, seeded)).toEqual(scenario.after(seeded));
          // Whatever the kill left, deleting again (or erasing again) leaves it gone.
          if (scenario.run(seeded).op === "delete") await fresh.delete(seeded.key);
          else {
            const again = await runPalimpsest(["--db", url, "--json", "erase", seeded.key.sessionId, "--yes"]);
            expect(again.code, again.stderr).toBe(0);
          }
          expect(await observe(fresh, seeded)).toEqual(gone(seeded));
        } finally {
          await fresh.close();
        }
        expect(integrityProblems(url)).toEqual([]);
      });
    }
  });
}
