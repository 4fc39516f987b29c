/**
 * The first commit into an empty write-ahead log also writes and syncs the log's header (SQLite deletes the
 * log when its last connection closes): two fsyncs where a later commit makes one. Opening a SQLite store
 * pays that with a write that changes nothing (user_version set to itself), so a process's first append does
 * not. Checked on a real file: after open the log holds its header and nothing else changed; a write lock
 * held elsewhere leaves the open as it was, without waiting for it.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DatabaseDump, dumpDatabase } from "../support/database-scan.ts";
import { whileLocked } from "../support/held-lock.ts";
import { Database } from "../support/sqlite-driver.ts";

/** The write-ahead log's header: 32 bytes, written with the first frame after a reset. */
const HEADER_BYTES = 32;

let dir: string;
let file: string;

/** The size of the file's write-ahead log (0 when there is none). */
async function logBytes(): Promise<number> {
  return stat(`${file}-wal`).then(
    (s) => s.size,
    () => 0,
  );
}

/** The database's user_version, read on a connection of its own. */
function userVersion(): unknown {
  const db = new Database(file);
  try {
    return db.pragma("user_version", { simple: true });
  } finally {
    db.close();
  }
}

/** A store file holding one session, every connection closed (its log deleted): what it held. */
async function closedStore(): Promise<DatabaseDump> {
  const store = await openEventStore(file);
  const runtime = new Palimpsest({ store, counterFor: createTokenCounter });
  const session = await runtime.startSession({ model: "gpt-4o" });
  await session.append({ role: "user", content: "What is in src/app.ts?" }, { turnId: "t1", completeTurn: true });
  const held = await dumpDatabase(store);
  await runtime.close();
  expect(await logBytes()).toBe(0);
  return held;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "palimpsest-log-header-"));
  file = join(dir, "store.db");
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("opening a SQLite store", () => {
  it("writes the empty log's header with a write that changes nothing", async () => {
    const held = await closedStore();
    const version = userVersion();
    const store = await openEventStore(file);
    try {
      // The header and the one page the write touched: the first append commits into a log already begun.
      expect(await logBytes()).toBeGreaterThan(HEADER_BYTES);
      expect(await dumpDatabase(store)).toEqual(held);
      expect(userVersion()).toBe(version);
    } finally {
      await store.close();
    }
  });

  it("given the write lock held elsewhere, then it opens without waiting for it, the log left as it was", async () => {
    await closedStore();
    const opened = await whileLocked("sqlite", file, "", async () => {
      const store = await openEventStore(file, { sqliteBusyTimeoutMs: 60_000 });
      const bytes = await logBytes();
      await store.close();
      return bytes;
    });
    expect(opened).toBe(0);
  });
});
