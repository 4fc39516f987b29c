/**
 * The append path's warm-ups (openPalimpsest runs them while the store opens). warmUpAppendPath runs a
 * step through validation and counting for each encoding without throwing, so a change to a schema it
 * feeds cannot silently turn it into a no-op (openPalimpsest ignores its failure). warmUpStore runs a
 * session's first appends through the store in a transaction it rolls back: on a real SQLite file and on
 * PostgreSQL (plain, encrypted, partitioned, and as an application role under row-level security) it
 * writes nothing, wakes no subscriber for its session and leaves no transaction open, yet it runs
 * (PostgreSQL's position sequence moves; a lock held elsewhere makes it fail instead of waiting). A failing
 * one, the store's refusal included (a read-only role), does not fail openPalimpsest.
 */
import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { StorageError } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { openPalimpsest, Palimpsest } from "@palimpsest/runtime";
import { type OpenedEventStore, openEventStore } from "@palimpsest/store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { warmUpAppendPath, warmUpStore } from "../../packages/runtime/src/palimpsest/warm-up.ts";
import { SqlEventStore } from "../../packages/store/src/open/opened-event-store.ts";
import { APP_GRANTS } from "../support/app-role-grants.ts";
import { dumpDatabase } from "../support/database-scan.ts";
import { whileLocked } from "../support/held-lock.ts";
import { runStatements, urlAs } from "../support/postgres-roles.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";
import { partitionedBackends, storeBackends } from "../support/store-backends.ts";
import { testEngine, testEngines } from "../support/test-engines.ts";
import { testKeyring } from "../support/test-keyring.ts";

describe("warmUpAppendPath", () => {
  for (const encoding of ["o200k_base", "cl100k_base"] as const) {
    it(`runs a step through the append path's CPU work (${encoding})`, async () => {
      await expect(warmUpAppendPath(await createTokenCounter(encoding))).resolves.toBeUndefined();
    });
  }
});

/** A session of two turns written through a runtime over `store`: content for the warm-up to leave alone. */
async function writeSession(store: OpenedEventStore): Promise<void> {
  const runtime = new Palimpsest({ store, counterFor: createTokenCounter });
  const session = await runtime.startSession({ model: "gpt-4o" });
  await session.append({ role: "user", content: "What is in src/app.ts?" }, { turnId: "t1" });
  await session.append({ role: "assistant", content: "main() and a step." }, { turnId: "t1", completeTurn: true });
  await session.append({ role: "user", content: "Thanks." }, { turnId: "t2", completeTurn: true });
}

/** The last value of every sequence of the database (PostgreSQL): what its inserts drew, rolled back or not. */
async function sequencesAt(url: string): Promise<number> {
  const [row] = await runStatements<{ drawn: string }>(
    url,
    "SELECT coalesce(sum(last_value), 0) AS drawn FROM pg_sequences WHERE schemaname = 'public'",
  );
  return Number(row?.drawn);
}

/** Backends of PostgreSQL connections other than the caller's inside a transaction on `url`'s database. */
async function openTransactions(url: string): Promise<number> {
  const [row] = await runStatements<{ open: string }>(
    url,
    "SELECT count(*) AS open FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() " +
      "AND state LIKE 'idle in transaction%'",
  );
  return Number(row?.open);
}

describe("warmUpStore", () => {
  for (const backend of [...storeBackends(), ...storeBackends(true), ...partitionedBackends()]) {
    const test = backend.skip === undefined ? it : it.skip;
    test(`writes nothing, wakes no one for it, leaves no transaction open (${backend.name})`, async () => {
      const made = await backend.make();
      try {
        const store = await made.open();
        await writeSession(store);
        const before = await dumpDatabase(store);
        const drawn = made.url === undefined ? 0 : await sequencesAt(made.url);
        const heard = new Set<string>();
        const unsubscribe = store.subscribe((change) => heard.add(change.sessionId));
        await store.listening(); // the feed hears other connections' commits from here on
        await warmUpStore(store);
        await warmUpStore(store); // again: its statements are prepared on the connection now
        expect(await dumpDatabase(store)).toEqual(before);
        if (made.url !== undefined) {
          expect(await sequencesAt(made.url)).toBeGreaterThan(drawn); // it ran the inserts
          expect(await openTransactions(made.url)).toBe(0);
        }
        // The real appends after it run on what it prepared, and see none of it.
        await writeSession(store);
        const sessions = (await store.listSessions()).map((s) => s.sessionId);
        expect(sessions).toHaveLength(2);
        unsubscribe();
        // Wake-ups may repeat (the feed catches up when it starts listening), but never name the warm-up's session.
        expect([...heard].filter((id) => !sessions.includes(id))).toEqual([]);
      } finally {
        await made.dispose();
      }
    });
  }

  it("makes no data key on an encrypting store", async () => {
    const keys = await testKeyring();
    const database = await testEngine("sqlite").create("warm_up_keys");
    try {
      const store = await openEventStore(database.url, { keyring: keys.keyring });
      const before = await readdir(keys.directory, { recursive: true });
      await warmUpStore(store);
      expect(await readdir(keys.directory, { recursive: true })).toEqual(before);
      await store.close();
    } finally {
      await database.drop();
      await keys.dispose();
    }
  });

  for (const engine of testEngines()) {
    const test = engine.skip === undefined ? it : it.skip;
    test(`fails rather than waits while another connection holds a lock it needs (${engine.name})`, async () => {
      const database = await engine.create("warm_up_lock");
      const store = await openEventStore(database.url);
      try {
        await writeSession(store);
        const before = await dumpDatabase(store);
        await whileLocked(engine.name, database.url, "sessions", () =>
          expect(warmUpStore(store)).rejects.toBeInstanceOf(StorageError),
        );
        expect(await dumpDatabase(store)).toEqual(before);
        await writeSession(store); // the store goes on as before
      } finally {
        await store.close();
        await database.drop();
      }
    });
  }

  for (const engine of testEngines()) {
    const test = engine.skip === undefined ? it : it.skip;
    test(`a failing warm-up does not fail openPalimpsest (${engine.name})`, async () => {
      const database = await engine.create("warm_up_fails");
      const failing = vi
        .spyOn(SqlEventStore.prototype, "warmUpAppends")
        .mockRejectedValue(new StorageError("warmUpAppends", "refused"));
      try {
        const runtime = await openPalimpsest({ url: database.url });
        expect(failing).toHaveBeenCalledOnce();
        const session = await runtime.startSession();
        await session.append({ role: "user", content: "Still here?" }, { turnId: "t1", completeTurn: true });
        expect((await runtime.store.listSessions()).length).toBe(1);
        await runtime.close();
      } finally {
        failing.mockRestore();
        await database.drop();
      }
    });
  }
});

const server = postgresServer();
const roles = "skip" in server ? describe.skip : describe;

roles("warmUpStore's statements on PostgreSQL", () => {
  it("prepares, on the connection appends then use, the statement of every batch of one to six events, keyed or not", async () => {
    if ("skip" in server) return;
    const database = await createScratchDatabase(server.url, "warm_up_sizes");
    // Every named statement a pg client was asked to run, per client: a name's first run prepares it there.
    const named = new WeakMap<object, Set<string>>();
    let fresh: string[] = [];
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      const name = (args[0] as { name?: unknown } | undefined)?.name;
      if (typeof name === "string") {
        const seen = named.get(this) ?? new Set<string>();
        named.set(this, seen);
        if (!seen.has(name)) fresh.push(name);
        seen.add(name);
      }
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query);
    const store = await openEventStore(database.url);
    try {
      await warmUpStore(store);
      expect(fresh.filter((name) => name.startsWith("palimpsest_append_")).length).toBeGreaterThanOrEqual(12);
      const session = await new Palimpsest({ store, counterFor: createTokenCounter }).startSession();
      const ask = (turn: string, i: number) => ({ role: "user" as const, content: `Question ${i} of ${turn}.` });
      for (const keyed of [false, true]) {
        for (let size = 1; size <= 6; size++) {
          const turnId = `t${size}${keyed ? "-keyed" : ""}`;
          const complete = size > 1;
          const messages = Array.from({ length: complete ? size - 1 : 1 }, (_, i) => ask(turnId, i));
          fresh = [];
          const events = await session.append(messages, {
            turnId,
            ...(complete ? { completeTurn: true } : {}),
            ...(keyed ? { idempotencyKey: `op-${turnId}` } : {}),
          });
          expect(events).toHaveLength(size);
          expect(fresh).toEqual([]);
        }
      }
    } finally {
      spy.mockRestore();
      await store.close();
      await database.drop();
    }
  });
});

roles("warmUpStore as PostgreSQL application roles", () => {
  let database: ScratchDatabase;
  const suffix = randomUUID().slice(0, 8);
  const app = `palimpsest_warm_app_${suffix}`;
  const reader = `palimpsest_warm_ro_${suffix}`;

  beforeAll(async () => {
    if ("skip" in server) return;
    database = await createScratchDatabase(server.url, "warm_up_roles");
    await (await openEventStore(database.url)).close(); // the owner migrates
    await runStatements(
      database.url,
      `CREATE ROLE ${app} LOGIN NOSUPERUSER NOBYPASSRLS`,
      ...APP_GRANTS.map((grant) => grant.replace("{role}", app)),
      `CREATE ROLE ${reader} LOGIN NOSUPERUSER NOBYPASSRLS`,
      `GRANT USAGE ON SCHEMA public TO ${reader}`,
      `GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${reader}`,
    );
  });

  afterAll(async () => {
    await database?.drop();
    if (!("skip" in server))
      await runStatements(server.url, `DROP ROLE IF EXISTS ${app}`, `DROP ROLE IF EXISTS ${reader}`);
  });

  it("runs under row-level security for its tenant, writing nothing", async () => {
    const store = await openEventStore(urlAs(database.url, app, "acme"), { tenant: "acme" });
    try {
      await writeSession(store);
      const before = await dumpDatabase(store);
      await warmUpStore(store);
      expect(await dumpDatabase(store)).toEqual(before);
      expect(await openTransactions(database.url)).toBe(0);
    } finally {
      await store.close();
    }
  });

  it("is refused to a read-only role, and openPalimpsest opens all the same", async () => {
    const url = urlAs(database.url, reader, "acme");
    const store = await openEventStore(url, { tenant: "acme" });
    try {
      await expect(warmUpStore(store)).rejects.toBeInstanceOf(StorageError);
    } finally {
      await store.close();
    }
    const runtime = await openPalimpsest({ url, tenant: "acme" });
    try {
      expect(await runtime.store.listSessions()).toHaveLength(1); // the session the application role wrote
    } finally {
      await runtime.close();
    }
  });
});
