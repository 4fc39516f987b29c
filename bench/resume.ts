/**
 * Resume: loading a session's state with loadSession, by full replay and from a snapshot saved near
 * the end, for sessions of 1k, 10k and 100k messages with a summary compaction every tenth.
 */
import { loadSession, openEventStore } from "@palimpsest/store";
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
}

/** Messages appended after the snapshot, so a snapshot load still replays a short tail. */
const TAIL = 50;

/** Builds one session per size and times both kinds of load, alternating, after a warmup. */
export async function runResumeBench(
  engine: "postgres" | "sqlite",
  url: string,
  quick: boolean,
): Promise<ResumeResult[]> {
  const sizes = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const store = await openEventStore(url);
  const results: ResumeResult[] = [];
  try {
    for (const messages of sizes) {
      const sessionId = `resume-${messages}`;
      progress(`resume ${engine}: building ${messages.toLocaleString("en-US")} messages`);
      await buildSession(store, sessionId, { messages, compact: true, snapshotAt: messages - TAIL, batch: 500 });
      const reps = messages >= 100_000 ? 3 : messages >= 10_000 ? 5 : 9;
      const replay: number[] = [];
      const snapshot: number[] = [];
      let replayedAfterSnapshot = 0;
      await loadSession(store, sessionId, false); // warmup
      for (let rep = 0; rep < reps; rep++) {
        replay.push((await timed(() => loadSession(store, sessionId, false))).ms);
        const fromSnapshot = await timed(() => loadSession(store, sessionId, true));
        snapshot.push(fromSnapshot.ms);
        replayedAfterSnapshot = fromSnapshot.value.replayedEvents;
      }
      const { state } = await loadSession(store, sessionId, false);
      results.push({
        engine,
        messages,
        events: state.lastSeq,
        liveMessages: state.live.length,
        reps,
        replayMs: median(replay),
        snapshotMs: median(snapshot),
        replayedAfterSnapshot,
        snapshotBytes: Buffer.byteLength((await store.loadSnapshot(sessionId))?.state ?? ""),
      });
      progress(
        `resume ${engine} ${messages}: replay ${median(replay).toFixed(1)} ms, snapshot ${median(snapshot).toFixed(1)} ms`,
      );
    }
  } finally {
    await store.close();
  }
  return results;
}
