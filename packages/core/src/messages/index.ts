export * from "./message.ts";
