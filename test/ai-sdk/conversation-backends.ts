import { type TestEngine, testEngine } from "../support/test-engines.ts";

/** An engine the conversation suite runs on: each test gets a database of its own (a URL). */
export interface ConversationBackend {
  readonly name: string;
  /** Why the engine is skipped (no PostgreSQL server), when it is. */
  readonly skip?: string;
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

/** The conversation backend of a test engine: databases labelled for this suite. */
function conversationsOn(engine: TestEngine): ConversationBackend {
  return {
    name: engine.name,
    ...(engine.skip === undefined ? {} : { skip: engine.skip }),
    create: () => engine.create("aisdk", "conversations.db"),
  };
}

/** SQLite: a real file in a fresh temporary folder. */
export const sqliteConversations: ConversationBackend = conversationsOn(testEngine("sqlite"));

/** PostgreSQL: a scratch database per test on TEST_DATABASE_URL's server; skipped (loudly) without one. */
export function postgresConversations(): ConversationBackend {
  return conversationsOn(testEngine("postgres"));
}
