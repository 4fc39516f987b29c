import type { Message } from "@palimpsest/core";
import { toOpenAIMessages } from "@palimpsest/projections";
import { assistantMessage, toolResult, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";

describe("toOpenAIMessages", () => {
  it("exports text messages as plain strings, joining text parts with newlines", () => {
    const system: Message = { id: "s", role: "system", content: [{ type: "text", text: "be brief" }] };
    const user: Message = {
      id: "u",
      role: "user",
      content: [
        { type: "text", text: "first" },
        { type: "text", text: "second" },
      ],
    };
    expect(toOpenAIMessages([system, user, assistantMessage("a", "hello")])).toStrictEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "first\nsecond" },
      { role: "assistant", content: "hello" },
    ]);
  });

  it("keeps the name of system, user and assistant messages and omits it when absent", () => {
    const named: Message = { ...userMessage("u", "hi"), name: "alice" };
    const system: Message = { id: "s", role: "system", content: [{ type: "text", text: "x" }], name: "ops" };
    const planner: Message = { ...assistantMessage("a", "plan"), name: "planner" };
    const out = toOpenAIMessages([named, system, userMessage("u2", "no name"), planner]);
    expect(out).toStrictEqual([
      { role: "user", content: "hi", name: "alice" },
      { role: "system", content: "x", name: "ops" },
      { role: "user", content: "no name" },
      { role: "assistant", content: "plan", name: "planner" },
    ]);
    expect(Object.hasOwn(out[2] ?? {}, "name")).toBe(false);
  });

  it("exports images as image_url parts: urls as given, inline data as a data: URL", () => {
    const user: Message = {
      id: "u",
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image", url: "https://example.com/cat.png" },
        { type: "image", mediaType: "image/jpeg", data: "QUJD" },
        { type: "image", data: "WFla" },
      ],
    };
    expect(toOpenAIMessages([user])).toStrictEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,QUJD" } },
          { type: "image_url", image_url: { url: "data:image/png;base64,WFla" } },
        ],
      },
    ]);
  });

  it("exports an assistant with tool calls and no text with content null", () => {
    const out = toOpenAIMessages([assistantMessage("a", "", ["c1", "c2"])]);
    expect(out).toStrictEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "run", arguments: "{}" } },
          { id: "c2", type: "function", function: { name: "run", arguments: "{}" } },
        ],
      },
    ]);
  });

  it("keeps assistant text beside tool calls and leaves tool_calls out when there are none", () => {
    const withCalls = toOpenAIMessages([assistantMessage("a", "checking", ["c1"])])[0];
    expect(withCalls).toMatchObject({ role: "assistant", content: "checking" });
    const plain = toOpenAIMessages([{ ...assistantMessage("b", "done"), toolCalls: [] }])[0];
    expect(plain).toStrictEqual({ role: "assistant", content: "done" });
  });

  it("passes tool call arguments through byte for byte, even when they are not valid JSON", () => {
    const args = ['{ "path" : "a.txt",\n  "n": 1.50 }', "not json {", "", '"\\u00e9 👩🏽‍💻 \u0000"'];
    const assistant: Message = {
      id: "a",
      role: "assistant",
      content: [],
      toolCalls: args.map((a, i) => ({ id: `c${i}`, name: "edit", arguments: a })),
    };
    const out = toOpenAIMessages([assistant])[0];
    if (out?.role !== "assistant") throw new Error("expected an assistant message");
    expect(out.tool_calls?.map((c) => c.function.arguments)).toStrictEqual(args);
  });

  it("exports tool results as tool messages with their call id and text", () => {
    const result: Message = {
      id: "r",
      role: "tool",
      toolCallId: "c1",
      name: "run",
      isError: true,
      content: [
        { type: "text", text: "line 1" },
        { type: "image", url: "https://example.com/x.png" },
      ],
    };
    expect(toOpenAIMessages([result, toolResult("r2", "c2", "ok")])).toStrictEqual([
      { role: "tool", tool_call_id: "c1", content: "line 1\n[image]" },
      { role: "tool", tool_call_id: "c2", content: "ok" },
    ]);
  });
});
