import type { CompiledQuery } from "kysely";

/**
 * Runs `guard`, then `statements`, in one transaction, committing only when the guard changed a row
 * (a compare-and-set); returns false, having changed nothing, when it changed none.
 */
export type GuardedWrite = (guard: CompiledQuery, statements: readonly CompiledQuery[]) => Promise<boolean>;

/** Rows of each read, in the order of the reads. */
export type ReadRows = Record<string, unknown>[][];

/** What a locked write decides from its reads: the guard and the writes (as a GuardedWrite runs them), and its outcome. */
export interface LockedPlan<T> {
  guard: CompiledQuery | undefined;
  statements: readonly CompiledQuery[];
  result: T;
}

/**
 * Runs `reads`, then the guard and writes `plan` decides from their rows, in one write transaction that
 * holds the lock from its first statement (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: the first read must lock
 * the rows it reads, `FOR UPDATE`), so no other writer can move between what was read and what is written
 * (an optimistic read-then-compare-and-set would lose every race against a steady writer). No guard: only
 * the result (nothing written). A guard that changes no row rolls back and rejects: under the lock it cannot.
 */
export type LockedWrite = <T>(reads: readonly CompiledQuery[], plan: (rows: ReadRows) => LockedPlan<T>) => Promise<T>;

/** Thrown inside the transaction to roll it back when the guard changed nothing. */
export class GuardFailed extends Error {}
