import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type OpenAgentsSessionOptions,
  openAgentsSession,
  type PalimpsestAgentsSession,
} from "@palimpsest/openai-agents";
import { afterEach } from "vitest";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";

/** An engine the adapter's tests run on; each test gets a database of its own. */
export interface Engine {
  readonly name: "sqlite" | "postgres";
  /** Why the engine is skipped (no PostgreSQL server), when it is. */
  readonly skip?: string;
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

const sqlite: Engine = {
  name: "sqlite",
  async create() {
    const dir = await mkdtemp(join(tmpdir(), "palimpsest-oa-"));
    return { url: join(dir, "store.db"), drop: () => rm(dir, { recursive: true, force: true }) };
  },
};

/** SQLite on a real file, and PostgreSQL on a scratch database (skipped, loudly, without TEST_DATABASE_URL). */
export function engines(): Engine[] {
  const server = postgresServer();
  const postgres: Engine =
    "skip" in server
      ? { name: "postgres", skip: server.skip, create: () => Promise.reject(new Error(server.skip)) }
      : { name: "postgres", create: () => createScratchDatabase(server.url, "oaagents") };
  return [sqlite, postgres];
}

/** One test's database: its URL, and sessions opened on it (each with its own runtime: a "process"). */
export interface TestDatabase {
  readonly url: string;
  open(options?: Omit<OpenAgentsSessionOptions, "url" | "runtime">): Promise<PalimpsestAgentsSession>;
}

/** Registers an afterEach closing every session a test opened and dropping its database; returns `fresh`. */
export function databases(engine: Engine): () => Promise<TestDatabase> {
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    const pending = cleanups.reverse();
    cleanups = [];
    for (const cleanup of pending) await cleanup();
  });
  return async () => {
    const database = await engine.create();
    cleanups.push(database.drop);
    return {
      url: database.url,
      async open(options = {}) {
        const session = await openAgentsSession({ ...options, url: database.url });
        cleanups.push(() => session.close());
        return session;
      },
    };
  };
}
