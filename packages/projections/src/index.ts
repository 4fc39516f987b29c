export * from "./export/anthropic.ts";
export * from "./export/check-request.ts";
export * from "./export/openai.ts";
export * from "./history/compaction-history.ts";
export * from "./history/expand.ts";
export * from "./view/active-view.ts";
export * from "./view/resume-state.ts";
