/**
 * The log's key checks on PostgreSQL probe the key index once per key, whatever the table's statistics:
 * on a never-analyzed `log_keys` (a server running autovacuum off, or a table between two analyses)
 * `key = ANY(…)` beside the session's columns was planned as a scan of the session's every key, growing an
 * append with its session. The statements of `knownKeys` and of an append's fresh-keys check are caught on
 * their way to the server (pg's `Client.query` wrapped: the real driver and server underneath), then
 * EXPLAINed: `log_keys` is read with the key in the index condition, never filtered.
 */
import type { Message } from "@palimpsest/core";
import { openPalimpsest, type Palimpsest } from "@palimpsest/runtime";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "../support/scratch-postgres.ts";

const server = postgresServer();

/** The statements pg's clients send while `run` runs, with their parameters. */
async function statementsOf(run: () => Promise<unknown>): Promise<{ text: string; values: unknown[] }[]> {
  const seen: { text: string; values: unknown[] }[] = [];
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args) {
    const [config, values] = args as unknown as [unknown, unknown];
    const text = typeof config === "string" ? config : (config as { text?: string }).text;
    const params = Array.isArray(values) ? values : (config as { values?: unknown[] } | undefined)?.values;
    if (typeof text === "string") seen.push({ text, values: params ?? [] });
    return query.apply(this, args) as never;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return seen;
}

/** The plan nodes of `statement` that scan log_keys, EXPLAINed (not run) on a client of its own. */
async function logKeysScans(url: string, statement: { text: string; values: unknown[] }) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
    const scans: Record<string, unknown>[] = [];
    const walk = (node: Record<string, unknown>) => {
      if (node["Relation Name"] === "log_keys" && String(node["Node Type"]).endsWith("Scan")) scans.push(node);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk((rows[0] as { "QUERY PLAN": { Plan: Record<string, unknown> }[] })["QUERY PLAN"][0]?.Plan ?? {});
    return scans;
  } finally {
    await client.end();
  }
}

/** A user message and the assistant's answer, with ids of their own. */
const exchange = (i: number): Message[] => [
  { id: `u-${i}`, role: "user", content: [{ type: "text", text: `question ${i}` }] },
  { id: `a-${i}`, role: "assistant", content: [{ type: "text", text: `answer ${i}` }] },
];

describe.skipIf("skip" in server)("log key checks on a never-analyzed PostgreSQL table", () => {
  let database: ScratchDatabase;
  let runtime: Palimpsest;
  beforeAll(async () => {
    if ("skip" in server) return;
    database = await createScratchDatabase(server.url, "logkeys");
    runtime = await openPalimpsest({ url: database.url });
  });
  afterAll(async () => {
    await runtime?.close();
    await database?.drop();
  });

  it("probes the key index per key in knownKeys and in an append's fresh-keys check", async () => {
    const session = await runtime.startSession();
    for (let i = 0; i < 100; i++) await session.append(exchange(i));
    const known = await statementsOf(() => runtime.store.knownKeys(session.id, ["message:u-3", "message:x"]));
    const appended = await statementsOf(() => session.append(exchange(100)));
    const checks = [...known, ...appended].filter((s) => /\blog_keys\b/.test(s.text) && !/^\s*insert/i.test(s.text));
    expect(checks.length).toBeGreaterThanOrEqual(2);
    for (const statement of checks) {
      const scans = await logKeysScans(database.url, statement);
      expect(scans.length).toBeGreaterThan(0);
      for (const scan of scans) {
        expect(String(scan["Index Cond"])).toMatch(/\bkey = /);
        expect(scan.Filter).toBeUndefined();
      }
    }
  });
});
