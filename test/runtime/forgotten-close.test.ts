import { describe, expect, it } from "vitest";
import { startScript } from "../support/child-script.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { createScratchDatabase } from "../support/scratch-postgres.ts";

/** pg's pool closes an idle connection after 10 s: a process its idle connections kept alive ends then. */
const POOL_IDLE_TIMEOUT_MS = 10_000;

const server = postgresServer();
describe.skipIf("skip" in server)("a script that never closes its PostgreSQL runtime", () => {
  it("exits once its work is done: idle connections do not keep the process alive", async () => {
    if ("skip" in server) return;
    const database = await createScratchDatabase(server.url, "forgotten_close");
    try {
      const child = startScript("test/runtime/forgotten-close.script.ts", [database.url]);
      const done = await new Promise<number>((resolve) => child.onMessage(() => resolve(performance.now())));
      const exit = await child.exited;
      const lingered = performance.now() - done;
      expect(exit, child.stderr()).toEqual({ code: 0, signal: null });
      // Without allowExitOnIdle the child lingers until the pool's idle timeout closes its connections.
      expect(lingered).toBeLessThan(POOL_IDLE_TIMEOUT_MS / 2);
    } finally {
      await database.drop();
    }
  }, 60_000);
});
