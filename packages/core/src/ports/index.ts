export * from "./candidate-store.ts";
export * from "./change-feed.ts";
export * from "./event-store.ts";
export * from "./snapshot-store.ts";
export * from "./summarizer.ts";
export * from "./token-counter.ts";
