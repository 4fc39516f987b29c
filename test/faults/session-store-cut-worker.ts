/**
 * Run as its own process by session-store-cuts.test.ts: opens the store at the URL it is sent, arms the cut
 * point (statement-cut.ts), then deletes a key through openSessionStore or erases a session with the
 * `palimpsest erase` command run in this process. At the cut point it stops dead and the parent SIGKILLs
 * it; should the operation end without reaching the cut, it says "finished" instead.
 */
import type { SessionKey } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { runCli } from "@palimpsest/cli";
import { report } from "./fault-process.ts";
import { armCut, type CutPoint } from "./statement-cut.ts";

/** What the parent asks for: the database, where to stop, and the operation to stop in. */
export interface CutRequest {
  url: string;
  cut: CutPoint;
  run: { op: "delete"; key: SessionKey } | { op: "cli-erase"; session: string };
}

process.on("message", (request: CutRequest) => {
  void (async () => {
    const { url, cut, run } = request;
    if (run.op === "delete") {
      const store = await openSessionStore({ url, settleMs: 60_000 });
      armCut(cut);
      await store.delete(run.key);
      await store.close();
    } else {
      armCut(cut);
      const code = await runCli(["--db", url, "--json", "erase", run.session, "--yes", "--reason", "cut"]);
      if (code !== 0) throw new Error(`palimpsest erase exited ${code}`);
    }
    await report({ t: "finished" });
    process.disconnect();
  })().catch(async (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
});
