/**
 * The contract suite every event store passes (SQLite, PostgreSQL and the memory store run it), for the
 * tests of another implementation of the EventStore port. It declares vitest tests: vitest (an optional
 * peer dependency) must be installed to import this entry point.
 */
export type {
  ContractBackend,
  ContractStore,
  HeldAppend,
} from "./contract/contract-backend.ts";
export { describeEventStoreContract } from "./contract/event-store-contract.ts";
