/** The EventStore contract on every test engine (test/support/test-engines.ts); PostgreSQL skips loudly without a server. */
import { describe, it } from "vitest";
import { storeBackends } from "../support/store-backends.ts";
import { describeEventStoreContract } from "./event-store-contract.ts";

for (const backend of storeBackends()) {
  if (backend.skip === undefined) {
    describeEventStoreContract(`${backend.name} (a fresh database per run)`, backend.make);
  } else {
    describe(`EventStore contract on ${backend.name}`, () => {
      it.skip(`SKIPPED: ${backend.skip}`, () => {});
    });
  }
}
