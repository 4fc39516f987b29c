/**
 * The one list of database engines the suites run on: every per-suite list (store and runtime backends,
 * the adapters' engines, the fault databases) is made from it, so a new engine is one entry here.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine } from "@palimpsest/store";
import { postgresServer } from "./postgres-server.ts";
import { createScratchDatabase, type ScratchDatabase } from "./scratch-postgres.ts";

/** An engine tests create databases on; each created database is the caller's alone. */
export interface TestEngine {
  readonly name: Engine;
  /** Why the engine is skipped (PostgreSQL without a server), when it is. */
  readonly skip?: string;
  /** A database of its own, named for `label`: its URL (a SQLite file path: `file`, in a new temporary folder). */
  create(label: string, file?: string): Promise<ScratchDatabase>;
}

/** SQLite: a real file in a fresh temporary folder, deleted by drop. */
const sqliteEngine: TestEngine = {
  name: "sqlite",
  async create(label, file = "store.db") {
    const dir = await mkdtemp(join(tmpdir(), `palimpsest-${label}-`));
    return { url: join(dir, file), drop: () => rm(dir, { recursive: true, force: true }) };
  },
};

/** PostgreSQL: a scratch database on TEST_DATABASE_URL's server (skipped, loudly, without one). */
function postgresEngine(): TestEngine {
  const server = postgresServer();
  if ("skip" in server) {
    return { name: "postgres", skip: server.skip, create: () => Promise.reject(new Error(server.skip)) };
  }
  return { name: "postgres", create: (label) => createScratchDatabase(server.url, label) };
}

/** Every engine the store opens, by name (a new engine fails to compile until it has its entry). */
const ENGINES: Record<Engine, () => TestEngine> = { sqlite: () => sqliteEngine, postgres: postgresEngine };

/** Every engine, SQLite first. */
export function testEngines(): TestEngine[] {
  return Object.values(ENGINES).map((engine) => engine());
}

/** The engine named `name` (only PostgreSQL's looks for its server). */
export function testEngine(name: Engine): TestEngine {
  return ENGINES[name]();
}
