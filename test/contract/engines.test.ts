/**
 * The exported EventStore contract (@palimpsest/store/contract) on every test engine
 * (test/support/test-engines.ts; PostgreSQL skips loudly without a server) and on the memory store.
 */
import { describeEventStoreContract } from "@palimpsest/store/contract";
import { describe, it } from "vitest";
import { memoryBackend, storeBackends } from "../support/store-backends.ts";

for (const backend of storeBackends()) {
  if (backend.skip === undefined) {
    describeEventStoreContract(`${backend.name} (a fresh database per run)`, backend.make);
  } else {
    describe(`EventStore contract on ${backend.name}`, () => {
      it.skip(`SKIPPED: ${backend.skip}`, () => {});
    });
  }
}

describeEventStoreContract("memory (createMemoryStore)", async () => memoryBackend());
