/**
 * Throwaway databases for one bench run: a fresh PostgreSQL database on the server of
 * BENCH_DATABASE_URL (or TEST_DATABASE_URL), dropped at the end, and SQLite files in a temp folder.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The PostgreSQL server URL the bench may create databases on, if one is configured. */
export function postgresServerUrl(): string | undefined {
  return process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
}

/** A temporary folder for SQLite files; drop() deletes it with everything inside. */
export function createSqliteFolder(): { path: (file: string) => string; drop: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "palimpsest-bench-"));
  return { path: (file) => join(dir, file), drop: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An engine as tables and progress lines name it, with its partitions (partitionLog) when it has some. */
export function layoutName(engine: "postgres" | "sqlite", partitions = 0): string {
  return partitions === 0 ? engine : `${engine}, ${partitions} partitions`;
}
