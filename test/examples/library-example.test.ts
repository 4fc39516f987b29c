import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");

it("the README's library example (examples/library.ts) runs and compacts", () => {
  const run = spawnSync(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), "examples/library.ts"], {
    cwd: root,
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  expect(run.stdout).toContain("4 live messages");
  expect(run.stdout).toContain("3 live messages after compaction");
});
