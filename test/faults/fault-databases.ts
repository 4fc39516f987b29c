import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";

/**
 * A database a fault suite hands to worker processes by URL: a real SQLite file, or a scratch PostgreSQL
 * database on TEST_DATABASE_URL's server (skipped loudly without one, as every PostgreSQL suite is).
 */
export interface FaultDatabase {
  readonly name: "sqlite" | "postgres";
  readonly skip?: string;
  /** Creates the database and returns its URL (a file path for SQLite). */
  create(): Promise<string>;
  /** Drops the database (or deletes the folder of the file). */
  dispose(): Promise<void>;
}

/** The two engines every fault suite runs on. */
export function faultDatabases(label: string): FaultDatabase[] {
  let dir: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  const sqlite: FaultDatabase = {
    name: "sqlite",
    async create() {
      dir = await mkdtemp(join(tmpdir(), `palimpsest-${label}-`));
      return join(dir, "faults.db");
    },
    dispose: async () => {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  };
  const server = postgresServer();
  const postgres: FaultDatabase = {
    name: "postgres",
    ...("skip" in server ? { skip: server.skip } : {}),
    async create() {
      if ("skip" in server) throw new Error(server.skip);
      const database = await createScratchDatabase(server.url, label);
      drop = database.drop;
      return database.url;
    },
    dispose: async () => drop?.(),
  };
  return [sqlite, postgres];
}
