import { defineConfig } from "vitest/config";

/**
 * Three projects, two commands (README, docs/development.md):
 * - `main` then `main-serial`, the README's `pnpm test` (at most 10 minutes on a two-core machine): every
 *   unit, contract, integration and CLI test, and the fault suites at their quick tier
 *   (PALIMPSEST_FAULT_TIER=quick: a tenth of their CI cases, test/faults/fault-scale.ts), so every fault
 *   scenario still runs on every engine; `main` on two workers, `main-serial` (GLOBAL_LOG_READERS) after it;
 * - `long`, `pnpm test:long` (`.ci/run` runs it after `main`): the fault suites at their CI counts, the ones
 *   that are long by nature, and the install from the packed tarballs (it compiles better-sqlite3 into a
 *   scratch npm project). `pnpm soak` is this project's fault suites at their soak counts.
 */

/** Fault suites whose case counts scale with the tier (faultCount): quick in `main`, CI counts in `long`. */
const SCALED_FAULTS = [
  "test/faults/adapter-kills.test.ts",
  "test/faults/crash-kills.test.ts",
  "test/faults/erase-kills.test.ts",
  "test/faults/hostile-input.test.ts",
  "test/faults/interleavings.test.ts",
  "test/faults/many-writers.test.ts",
  "test/faults/postgres-restart.test.ts",
  "test/faults/postgres-terminations.test.ts",
  "test/faults/purge-kills.test.ts",
  "test/faults/session-store-kills.test.ts",
  "test/faults/sqlite-fresh-open.test.ts",
  "test/faults/sqlite-two-processes.test.ts",
];

/**
 * Long by nature, only in `long`: every cut point of a mirrored erasure, the install from tarballs, and the
 * 50 MB cases (counting a 50 MB blob; a 50 MB tool output through the SessionStore on each engine).
 */
const LONG_ONLY = [
  "test/faults/session-store-cuts.test.ts",
  "test/install/**/*.test.ts",
  "packages/core/test/tokenizer/count-50-mb.test.ts",
  "test/claude-agent-sdk/session-store-50-mb.test.ts",
];

/**
 * Files that read the PostgreSQL global log and wait for what they wrote to show in it: its cursor stops
 * below the oldest transaction still open on the whole server (pg_snapshot_xmin), so another worker's
 * open transaction holds them back. They run after the parallel files, one at a time (`main-serial`).
 */
const GLOBAL_LOG_READERS = [
  "test/contract/engines.test.ts",
  "test/contract/postgres-global-cursor.test.ts",
  "test/cli/cli-watch.test.ts",
  "test/cli/cli-sessions.test.ts",
  "test/cli/cli-lookups.test.ts",
  "test/cli/cli-in-process.test.ts",
  "test/runtime/watch-events.test.ts",
  "test/runtime/follow-events.test.ts",
  "test/runtime/tenant-isolation.test.ts",
];

/**
 * What both projects share. Not at the root, where a global setup would run once more besides each project's
 * (a second build, and a second PostgreSQL container where testcontainers starts one).
 */
const shared = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: "forks" as const,
  globalSetup: ["test/support/build-global-setup.ts", "test/support/postgres-global-setup.ts"],
};

/** Where the README's test command looks for tests. */
const MAIN_FILES = ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"];

/**
 * What the README's command's two projects share: each worker runs its files in turn without a fresh
 * module graph per file (importing the workspace's sources again for each of 200 files cost 3 s a file on
 * a loaded machine: test/runtime took 363 s isolated, 253 s not), at the fault suites' quick tier.
 */
const mainShared = { ...shared, isolate: false, env: { PALIMPSEST_FAULT_TIER: "quick" } };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...mainShared,
          name: "main",
          include: MAIN_FILES,
          exclude: ["**/node_modules/**", ...LONG_ONLY, ...GLOBAL_LOG_READERS],
          // Two workers on two cores: about half the files wait on PostgreSQL, child processes or timers.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...mainShared,
          name: "main-serial",
          include: GLOBAL_LOG_READERS,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...shared,
          name: "long",
          include: [...SCALED_FAULTS, ...LONG_ONLY],
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
