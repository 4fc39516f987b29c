import type { LiveEntry } from "./session-state.ts";

/**
 * The tool calls still waiting for results at the end of a view: the calls of the last assistant
 * message with tool calls, minus the results that follow it. Empty when every call is answered.
 */
export function pendingCallsOf(live: readonly LiveEntry[]): Map<string, string> {
  const pending = new Map<string, string>();
  for (let i = live.length - 1; i >= 0; i--) {
    const message = (live[i] as LiveEntry).message;
    if (message.role === "tool") continue;
    if (message.role === "assistant" && message.toolCalls !== undefined) {
      for (const call of message.toolCalls) pending.set(call.id, message.id);
      for (let j = i + 1; j < live.length; j++) {
        const id = (live[j] as LiveEntry).message.toolCallId;
        if (id !== undefined) pending.delete(id);
      }
    }
    break;
  }
  return pending;
}
