/** The operations adapter-kills.test.ts schedules, and the items and messages each one writes. */
import type { ModelMessage } from "ai";

/** One operation: a Runner-like turn (addItems, or a conversation's save and saveResponse), a pop, a keyed transaction. */
export type AdapterOperation = { op: "turn"; turn: number } | { op: "pop" } | { op: "transaction"; turn: number };

/** The items the Runner stores for one turn: the input, a call, its result, the answer. */
export function adapterTurn(turn: number): Record<string, unknown>[] {
  return [
    { type: "message", role: "user", content: `question ${turn}` },
    { type: "function_call", callId: `call_${turn}`, name: "lookup", arguments: `{"n":${turn}}`, status: "completed" },
    {
      type: "function_call_result",
      name: "lookup",
      callId: `call_${turn}`,
      status: "completed",
      output: { type: "text", text: `result ${turn} `.repeat(50) },
    },
    {
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: `answer ${turn}` }],
    },
  ];
}

/** One AI SDK turn: the user's input (saved first), then the response's messages (a tool step and the answer). */
export function conversationTurn(turn: number): { input: ModelMessage[]; response: ModelMessage[] } {
  return {
    input: [{ role: "user", content: `question ${turn}` }],
    response: [
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: `call-${turn}`, toolName: "lookup", input: { n: turn } }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: `call-${turn}`,
            toolName: "lookup",
            output: { type: "text", value: `result ${turn} `.repeat(50) },
          },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: `answer ${turn}` }] },
    ],
  };
}
