import {
  type AnthropicMessage,
  activeView,
  checkAnthropicRequest,
  checkOpenAIRequest,
  type OpenAIMessage,
  toAnthropicRequest,
  toOpenAIMessages,
} from "@palimpsest/projections";
import { generatedSessionArb } from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const user = (text = "q"): OpenAIMessage => ({ role: "user", content: text });
const calls = (...ids: string[]): OpenAIMessage => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "run", arguments: "{}" } })),
});
const reply = (text = "a"): OpenAIMessage => ({ role: "assistant", content: text });
const result = (id: string): OpenAIMessage => ({ role: "tool", tool_call_id: id, content: "ok" });

const u = (...content: AnthropicMessage["content"]): AnthropicMessage => ({ role: "user", content });
const a = (...content: AnthropicMessage["content"]): AnthropicMessage => ({ role: "assistant", content });
const text = (t = "x") => ({ type: "text" as const, text: t });
const use = (id: string) => ({ type: "tool_use" as const, id, name: "run", input: {} });
const res = (id: string) => ({ type: "tool_result" as const, tool_use_id: id, content: "ok" });

describe("checkOpenAIRequest", () => {
  it("accepts complete tool exchanges", () => {
    expect(checkOpenAIRequest([user(), calls("c1", "c2"), result("c2"), result("c1"), reply(), user()])).toEqual([]);
  });

  it("accepts the trailing in-flight call, with and without partial results", () => {
    expect(checkOpenAIRequest([user(), calls("c1", "c2")])).toEqual([]);
    expect(checkOpenAIRequest([user(), calls("c1", "c2"), result("c1")])).toEqual([]);
  });

  it("accepts an empty request", () => {
    expect(checkOpenAIRequest([])).toEqual([]);
  });

  it("flags an orphan tool result", () => {
    const problems = checkOpenAIRequest([user(), result("c9"), reply()]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/#1: tool result c9/);
  });

  it("flags a tool result for a call of an earlier assistant message", () => {
    const problems = checkOpenAIRequest([user(), calls("c1"), result("c1"), reply(), result("c1")]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/#4/);
  });

  it("flags a duplicate tool result", () => {
    expect(checkOpenAIRequest([user(), calls("c1"), result("c1"), result("c1")])).toHaveLength(1);
  });

  it("flags a call left unanswered in the middle", () => {
    const problems = checkOpenAIRequest([user(), calls("c1", "c2"), result("c1"), user("next")]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/#3: calls c2 were never answered/);
    expect(checkOpenAIRequest([user(), calls("c1"), reply()])).toHaveLength(1);
  });
});

describe("checkAnthropicRequest", () => {
  it("accepts a well-formed exchange", () => {
    const messages = [u(text()), a(text(), use("c1"), use("c2")), u(res("c2"), res("c1"), text()), a(text())];
    expect(checkAnthropicRequest({ system: "s", messages })).toEqual([]);
  });

  it("accepts the trailing in-flight call, with and without partial results", () => {
    expect(checkAnthropicRequest({ messages: [u(text()), a(use("c1"), use("c2"))] })).toEqual([]);
    expect(checkAnthropicRequest({ messages: [u(text()), a(use("c1"), use("c2")), u(res("c1"))] })).toEqual([]);
  });

  it("flags an empty request (the API refuses one with no messages)", () => {
    expect(checkAnthropicRequest({ messages: [] })).toEqual(["no messages"]);
    expect(checkAnthropicRequest({ system: "s", messages: [] })).toEqual(["no messages"]);
  });

  it("flags a first turn that is not the user's", () => {
    const problems = checkAnthropicRequest({ messages: [a(text()), u(text())] });
    expect(problems).toEqual(["#0: first message is not from the user"]);
  });

  it("flags two user turns in a row, and two assistant turns in a row", () => {
    expect(checkAnthropicRequest({ messages: [u(text()), u(text())] })).toEqual(["#1: two user turns in a row"]);
    expect(checkAnthropicRequest({ messages: [u(text()), a(text()), a(text())] })).toEqual([
      "#2: two assistant turns in a row",
    ]);
  });

  it("flags empty content", () => {
    expect(checkAnthropicRequest({ messages: [u()] })).toEqual(["#0: empty content"]);
  });

  it("flags a tool_result after text", () => {
    const problems = checkAnthropicRequest({ messages: [u(text()), a(use("c1")), u(text(), res("c1"))] });
    expect(problems).toEqual(["#2: tool_result c1 comes after text"]);
  });

  it("flags a tool_result with no tool_use in the turn before", () => {
    const problems = checkAnthropicRequest({ messages: [u(text()), a(use("c1")), u(res("c1"), res("c9"))] });
    expect(problems).toEqual(["#2: tool_result c9 has no tool_use"]);
  });

  it("flags a tool_result in the first turn", () => {
    const problems = checkAnthropicRequest({ messages: [u(res("c1"), text()), a(text())] });
    expect(problems).toEqual(["#0: tool_result c1 does not follow a tool_use"]);
  });

  it("flags a tool_use left unanswered in the middle", () => {
    const partial = checkAnthropicRequest({
      messages: [u(text()), a(use("c1"), use("c2")), u(res("c1")), a(text()), u(text())],
    });
    expect(partial).toEqual(["#1: tool_use c2 never answered"]);
    const withText = checkAnthropicRequest({ messages: [u(text()), a(use("c1")), u(text())] });
    expect(withText).toEqual(["#1: tool_use c1 never answered"]);
  });
});

describe("exports of generated sessions", () => {
  it("pass both request checks (invariant 3)", () => {
    fc.assert(
      fc.property(generatedSessionArb(), (session) => {
        const view = activeView(session.state).messages;
        const openai = toOpenAIMessages(view);
        const anthropic = toAnthropicRequest(view);
        expect(checkOpenAIRequest(openai)).toEqual([]);
        expect(checkAnthropicRequest(anthropic)).toEqual([]);
        if (anthropic.messages.length > 0) expect(anthropic.messages[0]?.role).toBe("user");
      }),
      { numRuns: 200 },
    );
  });
});
