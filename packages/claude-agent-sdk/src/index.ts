export { type OpenSessionStoreOptions, openSessionStore } from "./open-session-store.ts";
export { PalimpsestSessionStore } from "./palimpsest-session-store.ts";
