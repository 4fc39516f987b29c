/**
 * Run as its own process by erase-kills.test.ts: opens the store at the URL it is sent, then erases the
 * sessions it is sent one by one, saying "erasing" before each erasure and "erased" (with how long it took) after it, until the
 * parent SIGKILLs it somewhere in that loop.
 */
import { openEventStore } from "@palimpsest/store";
import { report } from "./fault-process.ts";

process.on("message", (message: { url: string; ids: string[] }) => {
  void (async () => {
    const store = await openEventStore(message.url);
    for (const id of message.ids) {
      await report({ t: "erasing", id });
      const started = performance.now();
      await store.erase(id, { reason: "kill test" });
      await report({ t: "erased", id, ms: performance.now() - started });
    }
    await store.close();
    await report({ t: "done" });
    process.disconnect();
  })().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
});
