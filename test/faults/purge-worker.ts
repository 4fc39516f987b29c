/**
 * Run as its own process by purge-kills.test.ts: opens the store at the URL it is sent and says "ready",
 * then on each "purge" says "purging", runs `purgeErased` and says "purged" (with how long it took and
 * what it rewrote) or "failed" (the error's code, retryability and message); on "close" it closes the
 * store, says "done" and exits. The parent SIGKILLs it after "purging" in the kill test.
 */
import { isPalimpsestError } from "@palimpsest/core";
import { openEventStore } from "@palimpsest/store";
import { parentMessages, report } from "./fault-process.ts";

const inbox = parentMessages();

void (async () => {
  const { url } = (await inbox.next()) as { url: string };
  const store = await openEventStore(url);
  await report({ t: "ready" });
  for (;;) {
    const message = (await inbox.next()) as { t: "purge" | "close" };
    if (message.t === "close") break;
    await report({ t: "purging" });
    const started = performance.now();
    try {
      const result = await store.purgeErased();
      await report({ t: "purged", ms: performance.now() - started, relations: result.relations.length });
    } catch (error) {
      await report({
        t: "failed",
        palimpsest: isPalimpsestError(error),
        code: isPalimpsestError(error) ? error.code : undefined,
        retryable: isPalimpsestError(error) && error.retryable,
        message: String(error),
      });
    }
  }
  await store.close();
  await report({ t: "done" });
  process.disconnect();
})().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
