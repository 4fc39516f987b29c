export { HandoffQueue } from "./handoff-queue.ts";
