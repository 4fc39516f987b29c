/**
 * A session's append on a SQLite file another connection keeps locked past the store's busy timeout: the
 * retryable STORAGE error reaches the caller after one append. The runtime appends again only when an
 * append's answer may have been lost (a dropped connection, see lost-answer.ts); here the store waited the
 * whole busy timeout and wrote nothing, and appending again would only stretch the wait the caller set.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RuntimeStore, StorageError } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { openEventStore } from "@palimpsest/store";
import type BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";

/** better-sqlite3 is a dependency of @palimpsest/store, not of the root: resolve it from there. */
const Database = createRequire(new URL("../../packages/store/package.json", import.meta.url))(
  "better-sqlite3",
) as typeof BetterSqlite3;

describe("a SQLite file locked past the busy timeout under a session's append", () => {
  it("fails retryable after one append, nothing written; the same append lands once the lock is let go", async () => {
    const dir = await mkdtemp(join(tmpdir(), "palimpsest-busy-append-"));
    const file = join(dir, "store.db");
    const raw = await openEventStore(file, { sqliteBusyTimeoutMs: 200 });
    let appends = 0;
    const store = new Proxy(raw, {
      get(target, name) {
        if (name === "append") {
          return (...args: Parameters<RuntimeStore["append"]>) => {
            appends++;
            return target.append(...args);
          };
        }
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const runtime = new Palimpsest({ store, counterFor: createTokenCounter });
    const holder = new Database(file);
    try {
      const session = await runtime.startSession();
      await session.append(exchange(0));
      const before = { appends, log: await raw.readStream(session.id) };
      holder.exec("BEGIN IMMEDIATE");
      const failure = await session.append(exchange(1)).catch((error: unknown) => error);
      holder.exec("ROLLBACK");
      expect(failure).toBeInstanceOf(StorageError);
      expect((failure as StorageError).details).toMatchObject({ operation: "append", retryable: true });
      expect(appends - before.appends).toBe(1);
      expect(await raw.readStream(session.id)).toEqual(before.log);

      await session.append(exchange(1));
      expect(session.view().messages.map((m) => m.id)).toEqual([...exchange(0), ...exchange(1)].map((m) => m.id));
    } finally {
      holder.close();
      await raw.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
