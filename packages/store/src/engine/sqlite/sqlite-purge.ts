import { existsSync, statSync } from "node:fs";
import { backoff, StorageError } from "@palimpsest/core";
import type BetterSqlite3 from "better-sqlite3";
import { type PurgeFiles, tenths } from "../erasure-purge.ts";
import { isSqliteBusy, retryWhileBusy } from "./sqlite-busy.ts";
import { forgetSearchSamples } from "./sqlite-search.ts";

/** The first pause between two checkpoint attempts, and the longest. */
const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 50;

/**
 * SQLite's purge: the search index merged (mergeSearchIndex), then the whole file at once. An erasure
 * runs with `secure_delete` (the space it frees is zeroed), but pages freed or reused earlier without it (a snapshot replaced, a page split) keep old
 * bytes in their unused space and on the freelist. VACUUM writes every live row into a fresh database
 * and copies it over the file, page by page, then truncates it; in WAL mode the new pages go through the
 * WAL, so a checkpoint in TRUNCATE mode follows, copying them into the file and emptying the WAL (whose
 * older frames hold the pages as they were). Both take the file's write lock, waited for on timers like
 * every write (retryWhileBusy); the checkpoint also waits, on timers, for readers of older frames (other
 * processes' read transactions) to end. The purge holds the write lock for the merge's and the VACUUM's
 * length: this process's writes wait for it, other processes' retry for up to their busy timeout.
 */
export function sqlitePurge(database: BetterSqlite3.Database): PurgeFiles {
  return async (_tables, waitTimeoutMs) => {
    const file = database.name;
    const wal = `${file}-wal`;
    const fileBytes = () => (database.memory ? pagesBytes(database) : statSync(file).size);
    const walBytes = () => (!database.memory && existsSync(wal) ? statSync(wal).size : 0);
    const [bytesBefore, walBefore] = [fileBytes(), walBytes()];
    const merge = await lastAttempt(() =>
      retryWhileBusy(database, waitTimeoutMs, "purgeErased", () => timed(() => mergeSearchIndex(database))),
    );
    // The file's waits share one bound: the VACUUM waits for what the merge left of it.
    const vacuum = await lastAttempt(() =>
      retryWhileBusy(database, Math.max(0, waitTimeoutMs - merge.waitedMs), "purgeErased", () =>
        timed(() => database.exec("VACUUM")),
      ),
    );
    const checkpoint = await lastAttempt(() => truncateWal(database, waitTimeoutMs));
    const relations = [{ name: file, bytesBefore, bytesAfter: fileBytes(), ms: tenths(merge.ms + vacuum.ms) }];
    if (!database.memory) {
      relations.push({ name: wal, bytesBefore: walBefore, bytesAfter: walBytes(), ms: tenths(checkpoint.ms) });
    }
    return { relations, waitedMs: tenths(merge.waitedMs + vacuum.waitedMs + checkpoint.waitedMs) };
  };
}

/** A row the merge adds so that FTS5 has two segments to merge; deleted in the merge's transaction. */
const MERGE_ROW = { rowid: -1, terms: "palimpsest-purge" };

/**
 * FTS5's `optimize`: the search index's segments merged into one, every page written anew. An erasure
 * takes an erased message's terms out of the index's pages, but the keys that separate its pages
 * (`message_search_idx`) may keep a prefix of one until the page is written again. `optimize` does
 * nothing on an index of one segment (an erasure edits pages in place, so one purge's merge leaves one for
 * the next erasure): MERGE_ROW, added first, makes a second. ANALYZE's samples of the keys (taken since
 * the erasure) are dropped too; all in one transaction.
 */
function mergeSearchIndex(database: BetterSqlite3.Database): void {
  database
    .transaction(() => {
      database.prepare("INSERT INTO message_search (rowid, terms) VALUES (?, ?)").run(MERGE_ROW.rowid, MERGE_ROW.terms);
      database.exec("INSERT INTO message_search (message_search) VALUES ('optimize')");
      database
        .prepare("INSERT INTO message_search (message_search, rowid, terms) VALUES ('delete', ?, ?)")
        .run(MERGE_ROW.rowid, MERGE_ROW.terms);
      forgetSearchSamples(database);
    })
    .immediate();
}

/** The database's size as its pages count it (an in-memory database has no file). */
function pagesBytes(database: BetterSqlite3.Database): number {
  return (
    Number(database.pragma("page_count", { simple: true })) * Number(database.pragma("page_size", { simple: true }))
  );
}

/** Runs `work` and measures it. */
function timed(work: () => unknown): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

/** Runs attempts until one succeeds (`attempts` returns its time): that time, and the rest as waiting. */
async function lastAttempt(attempts: () => Promise<number>): Promise<{ ms: number; waitedMs: number }> {
  const start = performance.now();
  const ms = await attempts();
  return { ms, waitedMs: Math.max(0, performance.now() - start - ms) };
}

/** One `wal_checkpoint(TRUNCATE)`: true when it copied every frame into the file and emptied the WAL. */
function checkpointed(database: BetterSqlite3.Database): boolean {
  try {
    const [row] = database.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
    return row?.busy === 0;
  } catch (error) {
    if (isSqliteBusy(error)) return false;
    throw error;
  }
}

/**
 * `wal_checkpoint(TRUNCATE)` until it completes (SQLite answers busy, without waiting, while another
 * connection writes or reads frames it would overwrite), on timers for up to `timeoutMs`; the last
 * attempt's time. A retryable StorageError when readers kept the WAL in use for longer.
 */
async function truncateWal(database: BetterSqlite3.Database, timeoutMs: number): Promise<number> {
  if (database.memory) return 0;
  const start = performance.now();
  const pauses = backoff(FIRST_PAUSE_MS, LONGEST_PAUSE_MS);
  for (;;) {
    const attempt = performance.now();
    if (checkpointed(database)) return performance.now() - attempt;
    const waited = performance.now() - start;
    if (waited >= timeoutMs) {
      throw new StorageError(
        "purgeErased",
        `the database file ${database.name} is rewritten, but other processes kept reading its WAL for ` +
          `${Math.round(waited)} ms, so the WAL still holds older pages: run the purge again`,
        { retryable: true },
      );
    }
    await pauses.pause(timeoutMs - waited);
  }
}
