export * from "./cache-rules-for-profile.ts";
export * from "./observe-compaction.ts";
export * from "./policy-replay.ts";
export * from "./prompt-messages.ts";
export * from "./replay-session.ts";
export * from "./replay-transcript.ts";
