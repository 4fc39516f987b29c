/**
 * For the tests of a program that uses Palimpsest: a store held in memory, with the SQL stores' semantics,
 * to run an agent's runtime on (`new Palimpsest({ store: createMemoryStore(), counterFor })`). Plain
 * JavaScript: no driver, no file, no test framework.
 */
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from "./memory/memory-store.ts";
