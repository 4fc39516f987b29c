export type { Engine } from "./dialect.ts";
export { EVENT_STORE_OPTION_SHAPE, type OpenEventStoreOptions } from "./engine-opener.ts";
export { DEFAULT_PURGE_WAIT_MS } from "./erasure-purge.ts";
export type { LockedPlan, ReadRows } from "./guarded-write.ts";
export type { WarmUpAppend } from "./kysely-event-store.ts";
export {
  DEFAULT_SESSION_PAGE_SIZE,
  MAX_SESSION_PAGE_SIZE,
  type SessionCursor,
  type SessionPage,
  type SessionPageOptions,
} from "./session-page.ts";
export { DEFAULT_SQLITE_BUSY_TIMEOUT_MS, DEFAULT_SQLITE_POLL_MS } from "./sqlite/sqlite-defaults.ts";
export { DEFAULT_TENANT } from "./tenant.ts";
