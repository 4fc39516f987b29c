export * from "./tool-pairs.ts";
