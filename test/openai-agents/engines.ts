import {
  type OpenAgentsSessionOptions,
  openAgentsSession,
  type PalimpsestAgentsSession,
} from "@palimpsest/openai-agents";
import { afterEach } from "vitest";
import { testEngines } from "../support/test-engines.ts";

/** An engine the adapter's tests run on; each test gets a database of its own. */
export interface Engine {
  readonly name: string;
  /** Why the engine is skipped (no PostgreSQL server), when it is. */
  readonly skip?: string;
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

/** Every test engine (SQLite on a real file, PostgreSQL on a scratch database, skipped loudly without one). */
export function engines(): Engine[] {
  return testEngines().map((engine) => ({
    name: engine.name,
    ...(engine.skip === undefined ? {} : { skip: engine.skip }),
    create: () => engine.create("oaagents"),
  }));
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
