export * from "./replay/index.ts";
