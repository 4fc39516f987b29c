import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";

/** An engine the conversation suite runs on: each test gets a database of its own (a URL). */
export interface ConversationBackend {
  readonly name: "sqlite" | "postgres";
  /** Why the engine is skipped (no PostgreSQL server), when it is. */
  readonly skip?: string;
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

/** SQLite: a real file in a fresh temporary folder. */
export const sqliteConversations: ConversationBackend = {
  name: "sqlite",
  async create() {
    const dir = await mkdtemp(join(tmpdir(), "palimpsest-ai-sdk-"));
    return { url: join(dir, "conversations.db"), drop: () => rm(dir, { recursive: true, force: true }) };
  },
};

/** PostgreSQL: a scratch database per test on TEST_DATABASE_URL's server; skipped (loudly) without one. */
export function postgresConversations(): ConversationBackend {
  const server = postgresServer();
  if ("skip" in server) {
    return { name: "postgres", skip: server.skip, create: () => Promise.reject(new Error(server.skip)) };
  }
  return { name: "postgres", create: () => createScratchDatabase(server.url, "aisdk") };
}
