import type { ChangeFeed, EventStore } from "@palimpsest/core";
import type { Kysely } from "kysely";
import type { StoreDatabase } from "../engine/database-schema.ts";
import type { Dialect } from "../engine/dialect.ts";
import type { GuardedWrite } from "../engine/guarded-write.ts";
import { storeAccess } from "../engine/store-access.ts";
import type { AuditTables } from "./audit-tables.ts";

/** The log's tables and the audit read models': what the audit queries read. */
export type AuditDatabase = StoreDatabase & AuditTables;

/**
 * The store the audit read models are given (what openEventStore returns, or a runtime's store): the
 * global log, one session's events, and wake-ups after commits.
 */
export type AuditStore = Pick<EventStore, "readAll" | "readStream" | "getSession"> &
  Pick<ChangeFeed, "subscribe" | "listening">;

/** What the projector and the queries run on: the store's log, and its database and writes for the models. */
export interface AuditSource {
  readonly log: AuditStore;
  readonly db: Kysely<AuditDatabase>;
  /** The store's tenant, which raw SQL names itself (the kysely queries of `db` are confined to it). */
  readonly tenant: string;
  readonly dialect: Dialect;
  readonly writeGuarded: GuardedWrite;
  /** Waits until every commit so far can be read by readAll, at most `timeoutMs`; false when some could not. */
  readonly awaitVisible: (timeoutMs: number) => Promise<boolean>;
}

/** The audit source of a store openEventStore opened (ValidationError for any other object). */
export function auditSource(store: AuditStore): AuditSource {
  const access = storeAccess(store);
  return {
    log: store,
    db: access.db.withTables<AuditTables>(),
    tenant: access.tenant,
    dialect: access.dialect,
    writeGuarded: access.writeGuarded,
    awaitVisible: access.awaitVisible,
  };
}
