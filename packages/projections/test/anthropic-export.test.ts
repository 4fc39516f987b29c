import type { Message } from "@palimpsest/core";
import { CONTINUATION_PLACEHOLDER, checkAnthropicRequest, toAnthropicRequest } from "@palimpsest/projections";
import { assistantMessage, toolResult, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";

const system = (id: string, text: string): Message => ({ id, role: "system", content: [{ type: "text", text }] });

function callWith(args: string): Message {
  return { id: "a", role: "assistant", content: [], toolCalls: [{ id: "c1", name: "edit", arguments: args }] };
}

function inputOf(args: string): unknown {
  const block = toAnthropicRequest([userMessage("u", "go"), callWith(args)]).messages[1]?.content[0];
  if (block?.type !== "tool_use") throw new Error("expected a tool_use block");
  return block.input;
}

describe("toAnthropicRequest", () => {
  it("moves leading system messages into `system`, joined by a blank line", () => {
    const request = toAnthropicRequest([system("s1", "rule one"), system("s2", "rule two"), userMessage("u", "hi")]);
    expect(request).toStrictEqual({
      system: "rule one\n\nrule two",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
  });

  it("leaves `system` out when the view has no leading system message", () => {
    const request = toAnthropicRequest([userMessage("u", "hi")]);
    expect(Object.hasOwn(request, "system")).toBe(false);
  });

  it("turns a later system message into marked user text", () => {
    const request = toAnthropicRequest([
      system("s1", "lead"),
      userMessage("u1", "q"),
      assistantMessage("a1", "a"),
      system("s2", "budget is low"),
    ]);
    expect(request.system).toBe("lead");
    expect(request.messages).toStrictEqual([
      { role: "user", content: [{ type: "text", text: "q" }] },
      { role: "assistant", content: [{ type: "text", text: "a" }] },
      { role: "user", content: [{ type: "text", text: "[system] budget is low" }] },
    ]);
  });

  it("turns tool results into user tool_result blocks, keeping is_error, merged with what follows", () => {
    const failed: Message = { ...toolResult("r2", "c2", "boom"), isError: true };
    const request = toAnthropicRequest([
      userMessage("u1", "do it"),
      assistantMessage("a1", "", ["c1", "c2"]),
      toolResult("r1", "c1", "ok"),
      failed,
      userMessage("u2", "and then?"),
    ]);
    expect(request.messages).toStrictEqual([
      { role: "user", content: [{ type: "text", text: "do it" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "c1", name: "run", input: {} },
          { type: "tool_use", id: "c2", name: "run", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c1", content: "ok" },
          { type: "tool_result", tool_use_id: "c2", content: "boom", is_error: true },
          { type: "text", text: "and then?" },
        ],
      },
    ]);
    const ok = request.messages[2]?.content[0];
    expect(ok !== undefined && Object.hasOwn(ok, "is_error")).toBe(false);
  });

  it("joins a tool result's text parts and marks its images", () => {
    const result: Message = {
      id: "r",
      role: "tool",
      toolCallId: "c1",
      content: [
        { type: "text", text: "a" },
        { type: "image", url: "https://example.com/x.png" },
        { type: "text", text: "b" },
      ],
    };
    const request = toAnthropicRequest([userMessage("u", "go"), assistantMessage("a", "", ["c1"]), result]);
    expect(request.messages[2]?.content).toStrictEqual([
      { type: "tool_result", tool_use_id: "c1", content: "a\n[image]\nb" },
    ]);
  });

  it("merges consecutive same-role messages so roles alternate", () => {
    const request = toAnthropicRequest([
      userMessage("u1", "one"),
      userMessage("u2", "two"),
      assistantMessage("a1", "three"),
      assistantMessage("a2", "four", ["c1"]),
    ]);
    expect(request.messages).toStrictEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "three" },
          { type: "text", text: "four" },
          { type: "tool_use", id: "c1", name: "run", input: {} },
        ],
      },
    ]);
  });

  it("parses tool_use input from the JSON arguments", () => {
    expect(inputOf('{"path":"a.txt","lines":[1,2],"deep":{"x":null}}')).toStrictEqual({
      path: "a.txt",
      lines: [1, 2],
      deep: { x: null },
    });
  });

  it("wraps JSON that is not an object as { value }", () => {
    expect(inputOf("[1,2]")).toStrictEqual({ value: [1, 2] });
    expect(inputOf("42")).toStrictEqual({ value: 42 });
    expect(inputOf('"text"')).toStrictEqual({ value: "text" });
    expect(inputOf("null")).toStrictEqual({ value: null });
  });

  it("keeps invalid JSON arguments verbatim as { _raw_arguments }", () => {
    expect(inputOf('{"path": "a.txt"')).toStrictEqual({ _raw_arguments: '{"path": "a.txt"' });
    expect(inputOf("")).toStrictEqual({ _raw_arguments: "" });
  });

  it("drops empty text parts, and messages left with no blocks", () => {
    const user: Message = {
      id: "u",
      role: "user",
      content: [
        { type: "text", text: "" },
        { type: "text", text: "kept" },
      ],
    };
    const empty: Message = { id: "e", role: "user", content: [{ type: "text", text: "" }] };
    const request = toAnthropicRequest([user, assistantMessage("a", "x"), empty, userMessage("u2", "next")]);
    expect(request.messages).toStrictEqual([
      { role: "user", content: [{ type: "text", text: "kept" }] },
      { role: "assistant", content: [{ type: "text", text: "x" }] },
      { role: "user", content: [{ type: "text", text: "next" }] },
    ]);
  });

  it("exports images by url or as base64 with their media type (png by default)", () => {
    const user: Message = {
      id: "u",
      role: "user",
      content: [
        { type: "image", url: "https://example.com/cat.png" },
        { type: "image", mediaType: "image/jpeg", data: "QUJD" },
        { type: "image", data: "WFla" },
      ],
    };
    expect(toAnthropicRequest([user]).messages[0]?.content).toStrictEqual([
      { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "QUJD" } },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "WFla" } },
    ]);
  });

  it("puts a placeholder user turn first when the view opens with the assistant", () => {
    const request = toAnthropicRequest([
      system("s", "sys"),
      assistantMessage("a1", "earlier answer"),
      userMessage("u", "q"),
    ]);
    expect(request.messages).toStrictEqual([
      { role: "user", content: [{ type: "text", text: CONTINUATION_PLACEHOLDER }] },
      { role: "assistant", content: [{ type: "text", text: "earlier answer" }] },
      { role: "user", content: [{ type: "text", text: "q" }] },
    ]);
  });

  it("exports an empty or system-only view as the placeholder user turn alone, which passes the check", () => {
    const placeholder = { role: "user", content: [{ type: "text", text: CONTINUATION_PLACEHOLDER }] };
    expect(toAnthropicRequest([])).toStrictEqual({ messages: [placeholder] });
    const systemOnly = toAnthropicRequest([system("s", "sys")]);
    expect(systemOnly).toStrictEqual({ system: "sys", messages: [placeholder] });
    expect(checkAnthropicRequest(systemOnly)).toEqual([]);
    const emptied = toAnthropicRequest([{ id: "e", role: "user", content: [{ type: "text", text: "" }] }]);
    expect(emptied.messages).toStrictEqual([placeholder]);
  });
});
