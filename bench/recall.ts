/**
 * What recall costs (docs/recall.md), through the public API: (1) the search index on an agent's turns,
 * the same turns and resume (turns-and-resume.ts) on a store that indexes and one opened with
 * `search: false`, alternated on one database; (2) `session.recall` in a session of 10k and 100k
 * messages, for a word one message holds, one a hundred hold and three common words, beside what a user
 * would write instead: a case-insensitive LIKE scan of the session's events for the rare word.
 */
import { randomUUID } from "node:crypto";
import type { DomainEvent } from "@palimpsest/core";
import { Palimpsest } from "@palimpsest/runtime";
import { type Engine, openEventStore } from "@palimpsest/store";
import Database from "better-sqlite3";
import pg from "pg";
import { cheapCounter } from "../test/faults/fault-workload.ts";
import { median, progress } from "./stats.ts";
import { alternateTurnsAndResume, type TurnsAndResume } from "./turns-and-resume.ts";

/** The turns' figures on one store. */
export interface RecallAppendRow extends TurnsAndResume {
  engine: Engine;
  store: "search index" | "search: false";
}

/** Recall's latency in one session size. */
export interface RecallLatencyRow {
  engine: Engine;
  messages: number;
  /** Median ms of session.recall for the rare word (1 message), the medium one (100) and three common ones. */
  rareMs: number;
  mediumMs: number;
  commonMs: number;
  /** Median ms of a LIKE scan of the session's events for the rare word. */
  likeMs: number;
  /** Whether each found the planted message first. */
  found: boolean;
}

/** Appends the same turns on an indexing store and on one opened with `search: false`. */
export async function runRecallAppendBench(engine: Engine, url: string, quick: boolean): Promise<RecallAppendRow[]> {
  const runtime = async (search: boolean) =>
    new Palimpsest({ store: await openEventStore(url, { search }), counterFor: async () => cheapCounter });
  const stores = [
    { store: "search index", search: true },
    { store: "search: false", search: false },
  ] as const;
  const figures = await alternateTurnsAndResume(
    stores.map((s) => ({ open: async () => ({ writer: await runtime(s.search), reader: await runtime(s.search) }) })),
    quick,
  );
  return stores.map((s, i) => {
    const row = { engine, store: s.store, ...(figures[i] as TurnsAndResume) };
    progress(`recall append ${engine} ${s.store}: p50 turn ${row.p50TurnMs.toFixed(2)} ms`);
    return row;
  });
}

/** A deterministic vocabulary: common words, then rarer ones. */
const COMMON = ["the", "file", "test", "error", "run", "function", "value", "return", "config", "build"];
const WORDS = Array.from({ length: 4_000 }, (_, i) => `w${(i * 7919) % 100_003}x`);

/** Message `n`'s text: 40 words from the vocabulary; every 1,000th holds "medianword", message `rare` "zephyrquartz". */
function textOf(n: number, rare: number): string {
  const words: string[] = [];
  for (let i = 0; i < 40; i++) {
    const k = (n * 31 + i * 17) % 97;
    words.push(k < 30 ? (COMMON[k % COMMON.length] as string) : (WORDS[(n * 13 + i * 101) % WORDS.length] as string));
  }
  if (n % 1_000 === 7) words.push("medianword");
  if (n === rare) words.push("zephyrquartz failed at /srv/app/main.ts:42");
  return words.join(" ");
}

/** Times recall in sessions of `sizes` messages on the database at `url`. */
export async function runRecallLatencyBench(
  engine: Engine,
  url: string,
  sizes: readonly number[],
): Promise<RecallLatencyRow[]> {
  const store = await openEventStore(url);
  const runtime = new Palimpsest({ store, counterFor: async () => cheapCounter });
  const rows: RecallLatencyRow[] = [];
  try {
    for (const messages of sizes) {
      const session = await runtime.startSession({ sessionId: `recall-${messages}-${randomUUID()}`, model: "gpt-4o" });
      const rare = Math.floor(messages / 3);
      for (let from = 0; from < messages; from += 500) {
        const events: DomainEvent[] = [];
        for (let n = from; n < Math.min(messages, from + 500); n++) {
          const role = n % 2 === 0 ? "user" : "assistant";
          events.push({
            type: "message.appended",
            data: { message: { id: `m${n}`, role, content: [{ type: "text", text: textOf(n, rare) }] }, tokens: 50 },
          });
        }
        await store.append(session.id, events, { expectedVersion: "any" });
      }
      // As a server's autovacuum would have after such a load (the scale bench settles the same way).
      if (engine === "postgres") await analyze(url);
      progress(`recall latency ${engine}: ${messages} messages loaded`);
      const resumed = await runtime.resume(session.id);
      const time = async (work: () => Promise<unknown>) => {
        const times: number[] = [];
        for (let i = 0; i < 12; i++) {
          const start = performance.now();
          await work();
          if (i >= 2) times.push(performance.now() - start);
        }
        return median(times);
      };
      const hit = await resumed.recall("zephyrquartz");
      const like = likeScan(engine, url, session.id, "zephyrquartz");
      const row: RecallLatencyRow = {
        engine,
        messages,
        rareMs: await time(() => resumed.recall("zephyrquartz")),
        mediumMs: await time(() => resumed.recall("medianword")),
        commonMs: await time(() => resumed.recall("the error test")),
        likeMs: await time(like.scan),
        found: hit.messages[0]?.message.id === `m${rare}` && (await like.scan()) === 1,
      };
      await like.close();
      progress(
        `recall latency ${engine} ${messages}: rare ${row.rareMs.toFixed(2)} ms, medium ${row.mediumMs.toFixed(2)} ms, common ${row.commonMs.toFixed(2)} ms, LIKE ${row.likeMs.toFixed(2)} ms`,
      );
      rows.push(row);
    }
  } finally {
    await runtime.close();
  }
  return rows;
}

/** ANALYZE of the events table (PostgreSQL). */
async function analyze(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("ANALYZE events");
  } finally {
    await client.end();
  }
}

/** The LIKE scan a user would write: the session's events whose data holds `word` (any case); how many. */
function likeScan(engine: Engine, url: string, sessionId: string, word: string) {
  if (engine === "sqlite") {
    const db = new Database(url, { readonly: true });
    const statement = db.prepare("SELECT count(*) AS n FROM events WHERE session_id = ? AND data LIKE ?");
    return {
      scan: async () => (statement.get(sessionId, `%${word}%`) as { n: number }).n,
      close: async () => db.close(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  return {
    scan: async () => {
      await connected;
      const { rows } = await client.query<{ n: string }>(
        "SELECT count(*) AS n FROM events WHERE session_id = $1 AND data::text ILIKE $2",
        [sessionId, `%${word}%`],
      );
      return Number(rows[0]?.n);
    },
    close: () => client.end(),
  };
}
