import type { ChangeFeed, EventStore, StoreChange } from "@palimpsest/core";
import { newSessionId, started } from "./fixtures.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls until `done()` holds; fails after `timeoutMs`. The default is generous: on PostgreSQL the global
 * log shows a commit only once every older transaction on the server has ended, and other test files run
 * long ones (a 100 MB append, the fault suites) beside this one.
 */
export async function until(done: () => boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await sleep(10);
  }
}

/**
 * Resolves once `reader` hears commits made through `writer` (its LISTEN connection is up) and is live
 * (`listening()`: its first connection has caught up, so no wake-up of that catch-up can come later):
 * appends to a probe session until one is heard. Call it while `reader` has another subscriber, or its
 * connection closes.
 */
export async function untilHeard(writer: EventStore, reader: ChangeFeed, timeoutMs = 10_000): Promise<void> {
  const probe = newSessionId("probe");
  const heard: StoreChange[] = [];
  const unsubscribe = reader.subscribe((change) => {
    if (change.sessionId === probe) heard.push(change);
  });
  try {
    const deadline = Date.now() + timeoutMs;
    while (heard.length === 0) {
      if (Date.now() > deadline) throw new Error(`the reader heard no probe within ${timeoutMs} ms`);
      await writer.append(probe, [started()], { expectedVersion: "any" });
      await until(() => heard.length > 0, 50).catch(() => {});
    }
    await reader.listening();
  } finally {
    unsubscribe();
  }
}
