export { type HandoffRuntime, Handoffs, type RequestHandoffOptions } from "./queued-handoffs.ts";
