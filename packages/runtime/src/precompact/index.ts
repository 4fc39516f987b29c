export * from "./compact-with-candidate.ts";
export * from "./precompact-job.ts";
export * from "./precompact-monitor.ts";
export * from "./precompact-scheduler.ts";
export * from "./precompact-settings.ts";
