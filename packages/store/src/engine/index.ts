export type { Engine } from "./engine-adapter.ts";
export { KyselyEventStore } from "./kysely-event-store.ts";
export { DEFAULT_DATABASE_PATH, openEventStore } from "./open-event-store.ts";
