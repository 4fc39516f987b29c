export { type OpenSessionStoreOptions, openSessionStore } from "./open-session-store.ts";
export { PalimpsestSessionStore, type SessionStoreParts } from "./palimpsest-session-store.ts";
export { RECALL_SERVER_NAME, type RecallServerOptions } from "./recall-server.ts";
export type { SummaryFold } from "./summary-fold.ts";
