/**
 * Resume: loading a session's state with loadSession, by full replay and from the snapshot the runtime
 * saves right after a compaction, for sessions of 1k, 10k and 100k messages with a summary compaction
 * every tenth and 50 more messages after the last one.
 */
import { createRequire } from "node:module";
import { loadSession } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import type BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { median, progress, timed } from "./stats.ts";
import { buildSession } from "./workload.ts";

/** One session size on one engine: median load times and how much each load replayed. */
export interface ResumeResult {
  engine: "postgres" | "sqlite";
  messages: number;
  events: number;
  liveMessages: number;
  reps: number;
  replayMs: number;
  snapshotMs: number;
  /** Events folded on top of the snapshot. */
  replayedAfterSnapshot: number;
  /** Size of the snapshot's JSON state. */
  snapshotBytes: number;
  /** Of which the live view at the snapshot's point. */
  liveBytes: number;
  /** A raw read (the driver, no store) of the rows holding the loaded state's live messages, JSON parsed. */
  rawLiveMs: number;
}

/** Reads the data of the given events of a session with the bare driver and parses it: the floor of any resume. */
type RawRows = (sessionId: string, seqs: readonly number[]) => Promise<number>;

const Database = createRequire(new URL("../packages/store/package.json", import.meta.url))(
  "better-sqlite3",
) as typeof BetterSqlite3;

async function rawRowsReader(
  engine: "postgres" | "sqlite",
  url: string,
): Promise<{ read: RawRows; close(): Promise<void> }> {
  if (engine === "postgres") {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      read: async (sessionId, seqs) => {
        const { rows } = await client.query<{ data: unknown }>(
          "SELECT data::text AS data FROM events WHERE session_id = $1 AND seq = ANY($2::bigint[]) ORDER BY seq",
          [sessionId, [...seqs]],
        );
        for (const row of rows) JSON.parse(String(row.data));
        return rows.length;
      },
      close: () => client.end(),
    };
  }
  const db = new Database(url, { readonly: true });
  return {
    read: async (sessionId, seqs) => {
      const rows = db
        .prepare(
          `SELECT data FROM events WHERE session_id = ? AND seq IN (${seqs.map(() => "?").join(",")}) ORDER BY seq`,
        )
        .all(sessionId, ...seqs) as { data: string }[];
      for (const row of rows) JSON.parse(row.data);
      return rows.length;
    },
    close: async () => {
      db.close();
    },
  };
}

/** Bytes of the snapshot's live view. */
function liveBytesOf(text: string): number {
  const raw = JSON.parse(text) as Record<string, unknown>;
  return JSON.stringify(raw.live ?? null).length;
}

/** Messages appended after the last compaction (and its snapshot), so a snapshot load replays a short tail. */
const TAIL = 50;

/** Builds one session per size and times both kinds of load, alternating, after a warmup. */
export async function runResumeBench(
  engine: "postgres" | "sqlite",
  url: string,
  quick: boolean,
): Promise<ResumeResult[]> {
  const sizes = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const store = await openEventStore(url);
  const raw = await rawRowsReader(engine, url);
  const results: ResumeResult[] = [];
  try {
    for (const messages of sizes) {
      const sessionId = `resume-${messages}`;
      progress(`resume ${engine}: building ${messages.toLocaleString("en-US")} messages`);
      await buildSession(store, sessionId, {
        messages,
        compact: true,
        snapshotAfterCompactions: true,
        tail: TAIL,
        batch: 500,
      });
      const reps = messages >= 100_000 ? 3 : messages >= 10_000 ? 5 : 9;
      const replay: number[] = [];
      const snapshot: number[] = [];
      const rawLive: number[] = [];
      let replayedAfterSnapshot = 0;
      const { state } = await loadSession(store, sessionId, false); // warmup
      const liveSeqs = [...new Set(state.live.map((entry) => entry.seq))];
      for (let rep = 0; rep < reps; rep++) {
        replay.push((await timed(() => loadSession(store, sessionId, false))).ms);
        const fromSnapshot = await timed(() => loadSession(store, sessionId, true));
        snapshot.push(fromSnapshot.ms);
        replayedAfterSnapshot = fromSnapshot.value.replayedEvents;
        rawLive.push((await timed(() => raw.read(sessionId, liveSeqs))).ms);
      }
      const snapshotText = (await store.loadSnapshot(sessionId))?.state ?? "{}";
      results.push({
        engine,
        messages,
        events: state.lastSeq,
        liveMessages: state.live.length,
        reps,
        replayMs: median(replay),
        snapshotMs: median(snapshot),
        replayedAfterSnapshot,
        snapshotBytes: Buffer.byteLength(snapshotText),
        liveBytes: liveBytesOf(snapshotText),
        rawLiveMs: median(rawLive),
      });
      progress(
        `resume ${engine} ${messages}: replay ${median(replay).toFixed(1)} ms, snapshot ${median(snapshot).toFixed(1)} ms`,
      );
    }
  } finally {
    await raw.close();
    await store.close();
  }
  return results;
}
