/** The examples' small Claude Code session as SDK entries, and the databases the CLI-level tests run on. */
import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { claudeCodeSession } from "../../examples/claude-code-session.ts";
import { type CliDatabase, postgresCliDatabase, sqliteCliDatabase } from "../cli/harness.ts";
import { postgresServer } from "../support/postgres-server.ts";

const server = postgresServer();

/** A SQLite file, and PostgreSQL (undefined when there is no server: skip). */
export const DATABASES: [string, (() => Promise<CliDatabase>) | undefined][] = [
  ["SQLite file", sqliteCliDatabase],
  ["PostgreSQL", "skip" in server ? undefined : () => postgresCliDatabase(server.url)],
];

const session = claudeCodeSession("/work/app");

/** The session's lines as the SDK hands them to `append`. */
export const EXAMPLE_ENTRIES: SessionStoreEntry[] = session.lines
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as SessionStoreEntry);

/** Its SDK key. */
export const EXAMPLE_KEY = { projectKey: "-work-app", sessionId: session.sessionId };
