import { testEngines } from "../support/test-engines.ts";

/**
 * A database a fault suite hands to worker processes by URL: a real SQLite file, or a scratch PostgreSQL
 * database on TEST_DATABASE_URL's server (skipped loudly without one, as every PostgreSQL suite is).
 */
export interface FaultDatabase {
  readonly name: string;
  readonly skip?: string;
  /** Creates the database and returns its URL (a file path for SQLite). */
  create(): Promise<string>;
  /** Drops the database (or deletes the folder of the file). */
  dispose(): Promise<void>;
}

/** The engines every fault suite runs on (every test engine). */
export function faultDatabases(label: string): FaultDatabase[] {
  return testEngines().map((engine) => {
    let drop: (() => Promise<void>) | undefined;
    return {
      name: engine.name,
      ...(engine.skip === undefined ? {} : { skip: engine.skip }),
      async create() {
        const database = await engine.create(label, "faults.db");
        drop = database.drop;
        return database.url;
      },
      dispose: async () => drop?.(),
    };
  });
}
