import type { Message } from "@palimpsest/core";
import { createTokenCounter, IMAGE_TOKENS, MESSAGE_OVERHEAD_TOKENS } from "@palimpsest/core/tokenizer";
import { describe, expect, it } from "vitest";

const counter = await createTokenCounter("o200k_base");
const text = (t: string) => counter.countText(t);

describe("countMessage", () => {
  it("charges the framing overhead on an empty message", () => {
    const message: Message = { id: "m1", role: "user", content: [] };
    expect(MESSAGE_OVERHEAD_TOKENS).toBe(4);
    expect(counter.countMessage(message)).toBe(MESSAGE_OVERHEAD_TOKENS);
  });

  it("adds every text part and the name", () => {
    const message: Message = {
      id: "m1",
      role: "user",
      name: "alice",
      content: [
        { type: "text", text: "Hello there." },
        { type: "text", text: "<|endoftext|> is just text here" },
      ],
    };
    const expected =
      MESSAGE_OVERHEAD_TOKENS + text("alice") + text("Hello there.") + text("<|endoftext|> is just text here");
    expect(counter.countMessage(message)).toBe(expected);
  });

  it("charges a fixed estimate per image", () => {
    const message: Message = {
      id: "m1",
      role: "user",
      content: [
        { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=".repeat(1000) },
        { type: "image", url: "https://example.com/a.png" },
        { type: "text", text: "what is this?" },
      ],
    };
    expect(counter.countMessage(message)).toBe(MESSAGE_OVERHEAD_TOKENS + 2 * IMAGE_TOKENS + text("what is this?"));
  });

  it("counts tool call names and arguments, not reasoning or metadata", () => {
    const args = JSON.stringify({ path: "src/index.ts", limit: 200 });
    const message: Message = {
      id: "m2",
      role: "assistant",
      content: [{ type: "text", text: "Reading the file." }],
      toolCalls: [
        { id: "call_1", name: "read_file", arguments: args },
        { id: "call_2", name: "bash", arguments: '{"command":"ls -la"}' },
      ],
      reasoning: { type: "thinking", thinking: "a long hidden chain of thought", signature: "abc" },
      metadata: { model: "gpt-4o" },
    };
    const expected =
      MESSAGE_OVERHEAD_TOKENS +
      text("Reading the file.") +
      text("read_file") +
      text(args) +
      text("bash") +
      text('{"command":"ls -la"}');
    expect(counter.countMessage(message)).toBe(expected);
  });

  it("counts the tool call id of a tool result", () => {
    const output = "total 8\ndrwxr-xr-x 2 root root 4096 .\n".repeat(50);
    const message: Message = {
      id: "m3",
      role: "tool",
      toolCallId: "toolu_01ABCdef",
      isError: false,
      content: [{ type: "text", text: output }],
    };
    expect(counter.countMessage(message)).toBe(MESSAGE_OVERHEAD_TOKENS + text("toolu_01ABCdef") + text(output));
  });
});
