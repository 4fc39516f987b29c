import { defineConfig } from "vitest/config";

/**
 * Two projects, two commands (README, docs/development.md):
 * - `main`, the README's `pnpm test` (at most 10 minutes on a two-core machine): every unit, contract,
 *   integration and CLI test, and the fault suites at their quick tier (PALIMPSEST_FAULT_TIER=quick: a tenth
 *   of their CI cases, test/faults/fault-scale.ts), so every fault scenario still runs on every engine;
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
  "test/faults/session-store-kills.test.ts",
  "test/faults/sqlite-fresh-open.test.ts",
  "test/faults/sqlite-two-processes.test.ts",
];

/** Long by nature, only in `long`: every cut point of a mirrored erasure, and the install from tarballs. */
const LONG_ONLY = ["test/faults/session-store-cuts.test.ts", "test/install/**/*.test.ts"];

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

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: "main",
          include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...LONG_ONLY],
          env: { PALIMPSEST_FAULT_TIER: "quick" },
          // Each worker runs its files in turn without a fresh module graph per file: importing the workspace's
          // sources again for each of 200 files cost 3 s a file on a loaded machine (test/runtime: 363 s
          // isolated, 253 s not). One worker, as vitest's default on two cores: with two, the PostgreSQL
          // global-cursor tests (test/contract/postgres-global-cursor.test.ts, cli-watch's --after) failed,
          // their xid-ordered cursor seeing the other worker's transactions on the same server.
          isolate: false,
          maxWorkers: 1,
        },
      },
      {
        test: {
          ...shared,
          name: "long",
          include: [...SCALED_FAULTS, ...LONG_ONLY],
        },
      },
    ],
  },
});
