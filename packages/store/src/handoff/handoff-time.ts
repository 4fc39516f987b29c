import type { Clock } from "@palimpsest/core";
import { type RawBuilder, sql } from "kysely";
import type { Dialect } from "../engine/dialect.ts";

/** Now as an SQL expression (epoch ms): the database's clock, or the injected clock's value. */
export function nowSql(dialect: Dialect, clock: Clock | undefined): RawBuilder<number> {
  if (clock !== undefined) return sql<number>`cast(${clock()} as bigint)`;
  return dialect.nowMs();
}

/** When a lease taken `now` for `leaseMs` runs out. */
export function leaseEnd(now: RawBuilder<number>, leaseMs: number): RawBuilder<number> {
  return sql<number>`${now} + cast(${leaseMs} as bigint)`;
}
