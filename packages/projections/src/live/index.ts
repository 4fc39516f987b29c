export { type FollowProgress, followEvents } from "./follow-events.ts";
export type { LogPosition, WatchTarget } from "./log-cursor.ts";
export { watchEvents } from "./watch-events.ts";
export type { WatchOptions } from "./watch-log.ts";
export { watchView } from "./watch-view.ts";
