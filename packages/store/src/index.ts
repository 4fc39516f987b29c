export * from "./audit/index.ts";
export * from "./engine/index.ts";
export * from "./handoff/index.ts";
export * from "./mirror/index.ts";
export { DEFAULT_DATABASE_PATH, openEventStore } from "./open/open-event-store.ts";
export type { OpenedEventStore } from "./open/opened-event-store.ts";
