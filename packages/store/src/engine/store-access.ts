import { ValidationError } from "@palimpsest/core";
import type { CompiledQuery, Kysely } from "kysely";
import type { ContentCipher } from "../encryption/content-cipher.ts";
import type { StoreDatabase } from "./database-schema.ts";
import type { Dialect } from "./dialect.ts";
import type { GuardedWrite, LockedWrite } from "./guarded-write.ts";

/**
 * What a feature keeping its own tables beside the log (audit, hand-offs, candidates, the mirror) writes
 * through: the kysely handle (typed with the log's tables; a feature adds its own with `withTables`), the
 * engine's dialect, the store's guarded and locked writes, its wait for commits global readers cannot see
 * yet, and its cipher when it encrypts content. Not on the public store: features and tests get it from
 * storeAccess.
 */
export interface StoreAccess {
  /** The database, every kysely query confined to the store's tenant (TenantScope). */
  readonly db: Kysely<StoreDatabase>;
  /** The store's tenant: what raw SQL (a `sql` template) must name itself. */
  readonly tenant: string;
  readonly dialect: Dialect;
  readonly writeGuarded: GuardedWrite;
  readonly writeLocked: LockedWrite;
  /**
   * Runs `statements` as the feature's writes would, in one transaction rolled back (EngineAdapter.rehearse):
   * a warm-up that writes nothing, into which no other write of the process can land. A StorageError when
   * the database refuses or a lock is held.
   */
  readonly rehearse: (statements: readonly CompiledQuery[]) => Promise<void>;
  readonly awaitVisible: (timeoutMs: number) => Promise<boolean>;
  /** What seals a feature's content too, when the store was opened with a keyring. */
  readonly cipher: ContentCipher | undefined;
}

const accesses = new WeakMap<object, StoreAccess>();

/** Records the access of a store the engine built (called once, by its constructor). */
export function grantAccess(store: object, access: StoreAccess): void {
  accesses.set(store, access);
}

/** The access of a store openEventStore opened; ValidationError for any other object. */
export function storeAccess(store: object): StoreAccess {
  const access = accesses.get(store);
  if (access === undefined) {
    throw new ValidationError("not a store opened by openEventStore", ["store: expected what openEventStore returned"]);
  }
  return access;
}
