import type { LiveEntry, Message } from "@palimpsest/core";

/**
 * The role a summary replacing `live[from..to]` should take so roles still alternate: assistant
 * between a user message and the next user message, user otherwise.
 */
export function summaryRole(live: readonly LiveEntry[], from: number, to: number): Message["role"] {
  const before = live.slice(0, from).findLast((e) => e.message.role !== "system")?.message.role;
  const after = live[to + 1]?.message.role;
  return before === "user" && (after === undefined || after === "user") ? "assistant" : "user";
}
