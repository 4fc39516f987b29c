import { afterAll, beforeAll, describe } from "vitest";
import { appendReadContract } from "./append-read.contract.ts";
import { concurrencyContract } from "./concurrency.contract.ts";
import type { ContractBackend, ContractContext, ContractStore } from "./contract-backend.ts";
import { erasurePurgeContract } from "./erasure-purge.contract.ts";
import { idempotencyValidationContract } from "./idempotency-validation.contract.ts";
import { logKeysContract } from "./log-keys.contract.ts";
import { payloadsSnapshotsContract } from "./payloads-snapshots.contract.ts";
import { searchContract } from "./search.contract.ts";
import { sessionPageContract } from "./session-page.contract.ts";
import { tenantsContract } from "./tenants.contract.ts";

/**
 * Declares (with vitest) the contract every EventStore + SnapshotStore + ChangeFeed must pass, the one the
 * SQLite, PostgreSQL and memory stores pass: appends and reads, expected versions and the view-version
 * compare-and-set under racing writers, idempotency, validation, log keys, erasure of keys, payloads,
 * snapshots, failures, the global log, the catalogue's pages, the purge of erased content, two tenants
 * on one database, and the search of messages. Call it at the top level of a test file;
 * `createBackend` runs once, before the tests, and its `dispose` after them.
 */
export function describeEventStoreContract<S extends ContractStore>(
  name: string,
  createBackend: () => Promise<ContractBackend<S>>,
): void {
  describe(`EventStore contract on ${name}`, () => {
    let backend: ContractBackend<S> | undefined;
    let store: S | undefined;
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
    erasurePurgeContract(ctx);
    tenantsContract(ctx);
    searchContract(ctx);
  });
}

function fail(message: string): never {
  throw new Error(message);
}
