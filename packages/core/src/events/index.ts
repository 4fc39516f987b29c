export * from "./envelope.ts";
export * from "./erase-event.ts";
export * from "./event-data.ts";
export * from "./event-id-limits.ts";
export * from "./event-types.ts";
export * from "./parse-event.ts";
export * from "./upcast.ts";
