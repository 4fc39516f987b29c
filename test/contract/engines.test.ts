/**
 * The exported EventStore contract (@palimpsest/store/contract) on every test engine
 * (test/support/test-engines.ts; PostgreSQL skips loudly without a server), plain and encrypting content
 * with a keyring; on PostgreSQL with the log partitioned by session (partitionLog); and on the memory store.
 */
import { describeEventStoreContract } from "@palimpsest/store/contract";
import { describe, it } from "vitest";
import { memoryBackend, partitionedBackends, storeBackends } from "../support/store-backends.ts";

for (const backend of [...storeBackends(), ...storeBackends(true), ...partitionedBackends()]) {
  if (backend.skip === undefined) {
    describeEventStoreContract(`${backend.name} (a fresh database per run)`, backend.make);
  } else {
    describe(`EventStore contract on ${backend.name}`, () => {
      it.skip(`SKIPPED: ${backend.skip}`, () => {});
    });
  }
}

describeEventStoreContract("memory (createMemoryStore)", async () => memoryBackend());
