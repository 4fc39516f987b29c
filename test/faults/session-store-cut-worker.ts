/**
 * Run as its own process by session-store-cuts.test.ts: opens the store at the URL it is sent, arms the cut
 * point (statement-cut.ts), then deletes a key through openSessionStore or erases a session with the
 * `palimpsest erase` command run in this process, encrypting with the parent's keyring when it is sent one. At the cut point it stops dead and the parent SIGKILLs
 * it; should the operation end without reaching the cut, it says "finished" instead.
 */
import type { SessionKey } from "@anthropic-ai/claude-agent-sdk";
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { runCli } from "@palimpsest/cli";
import { report } from "./fault-process.ts";
import { armCut, type CutPoint } from "./statement-cut.ts";
import { openWorkerKeyring, type WorkerKeys } from "./worker-keys.ts";

/** What the parent asks for: the database (and its keyring), where to stop, and the operation to stop in. */
export interface CutRequest {
  url: string;
  keys?: WorkerKeys;
  cut: CutPoint;
  run: { op: "delete"; key: SessionKey } | { op: "cli-erase"; session: string };
}

process.on("message", (request: CutRequest) => {
  void (async () => {
    const { url, keys, cut, run } = request;
    if (run.op === "delete") {
      const keyring = keys === undefined ? undefined : await openWorkerKeyring(keys);
      const store = await openSessionStore({ url, settleMs: 60_000, ...(keyring === undefined ? {} : { keyring }) });
      armCut(cut);
      await store.delete(run.key);
      await store.close();
    } else {
      if (keys !== undefined) {
        process.env.PALIMPSEST_KEYRING = keys.directory;
        process.env.PALIMPSEST_MASTER_KEY = Buffer.from(keys.masterKey, "hex").toString("base64");
      }
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
