import { type Clock, ValidationError } from "@palimpsest/core";
import { type RawBuilder, sql } from "kysely";
import type { Dialect } from "../engine/dialect.ts";

/** Now as an SQL expression (epoch ms): the database's clock, or the injected clock's value. */
export function nowSql(dialect: Dialect, clock: Clock | undefined): RawBuilder<number> {
  if (clock !== undefined) return sql<number>`cast(${clock()} as bigint)`;
  return dialect.nowMs();
}

/** A lease must be a positive, finite number of milliseconds. */
export function checkLease(leaseMs: number): void {
  if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0) {
    throw new ValidationError(`invalid lease: ${String(leaseMs)}`, [
      "leaseMs must be a positive integer of milliseconds",
    ]);
  }
}

/** When a lease taken `now` for `leaseMs` runs out. */
export function leaseEnd(now: RawBuilder<number>, leaseMs: number): RawBuilder<number> {
  return sql<number>`${now} + cast(${leaseMs} as bigint)`;
}
