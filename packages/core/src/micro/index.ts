export * from "./exchanges.ts";
export * from "./micro-input.ts";
export * from "./micro-plan-types.ts";
export * from "./micro-settings.ts";
export * from "./plan-micro.ts";
