export * from "./error-names.ts";
export * from "./message.ts";
export * from "./tool-call-kinds.ts";
export * from "./tool-output.ts";
export * from "./user-requests.ts";
