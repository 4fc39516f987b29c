export type { Engine } from "./engine-adapter.ts";
export type { LockedPlan, ReadRows } from "./guarded-write.ts";
export { KyselyEventStore } from "./kysely-event-store.ts";
export { DEFAULT_DATABASE_PATH, type OpenEventStoreOptions, openEventStore } from "./open-event-store.ts";
export {
  DEFAULT_SESSION_PAGE_SIZE,
  MAX_SESSION_PAGE_SIZE,
  type SessionCursor,
  type SessionPage,
  type SessionPageOptions,
} from "./session-page.ts";
export { DEFAULT_SQLITE_BUSY_TIMEOUT_MS } from "./sqlite-busy.ts";
export { DEFAULT_SQLITE_POLL_MS } from "./sqlite-changes.ts";
