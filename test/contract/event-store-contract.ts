import { afterAll, beforeAll, describe } from "vitest";
import type { StoreBackend, TestStore } from "../support/store-backends.ts";
import { appendReadContract } from "./append-read.contract.ts";
import { concurrencyContract } from "./concurrency.contract.ts";
import type { ContractContext } from "./fixtures.ts";
import { idempotencyValidationContract } from "./idempotency-validation.contract.ts";
import { logKeysContract } from "./log-keys.contract.ts";
import { payloadsSnapshotsContract } from "./payloads-snapshots.contract.ts";
import { sessionPageContract } from "./session-page.contract.ts";

/** The one contract every EventStore + SnapshotStore backend must pass, run on a fresh backend. */
export function describeEventStoreContract(name: string, createBackend: () => Promise<StoreBackend>): void {
  describe(`EventStore contract on ${name}`, () => {
    let backend: StoreBackend | undefined;
    let store: TestStore | undefined;
    beforeAll(async () => {
      backend = await createBackend();
      store = await backend.open();
    });
    afterAll(async () => {
      await backend?.dispose();
    });
    const ctx: ContractContext = {
      store: () => store ?? fail("the store is not open"),
      backend: () => backend ?? fail("the backend is not ready"),
    };
    appendReadContract(ctx);
    concurrencyContract(ctx);
    idempotencyValidationContract(ctx);
    logKeysContract(ctx);
    payloadsSnapshotsContract(ctx);
    sessionPageContract(ctx);
  });
}

function fail(message: string): never {
  throw new Error(message);
}
