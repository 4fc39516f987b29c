/**
 * Throwaway databases for one bench run: a fresh PostgreSQL database on the server of
 * BENCH_DATABASE_URL (or TEST_DATABASE_URL), dropped at the end, and SQLite files in a temp folder.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** The PostgreSQL server URL the bench may create databases on, if one is configured. */
export function postgresServerUrl(): string | undefined {
  return process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
}

/** A database created for this run: its URL and how to drop it. */
export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

async function admin(serverUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Creates an empty database on the server of `serverUrl`; drop() removes it even with open connections. */
export async function createPostgresDatabase(serverUrl: string, label: string): Promise<ScratchDatabase> {
  const name = `palimpsest_bench_${label}_${process.pid}_${randomBytes(3).toString("hex")}`;
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A temporary folder for SQLite files; drop() deletes it with everything inside. */
export function createSqliteFolder(): { path: (file: string) => string; drop: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "palimpsest-bench-"));
  return { path: (file) => join(dir, file), drop: () => rmSync(dir, { recursive: true, force: true }) };
}
