import type { Message } from "@palimpsest/core";
import { type AnthropicRequest, checkAnthropicRequest, toAnthropicRequest } from "@palimpsest/projections";
import { assistantMessage, toolResult, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";

const system: Message = { id: "s", role: "system", content: [{ type: "text", text: "rules" }] };
const summary = assistantMessage("sum", "Summary of the earlier work: listed src/.");
const view: Message[] = [
  system,
  userMessage("u1", "fix the bug"),
  summary,
  userMessage("u2", "go on"),
  assistantMessage("a2", "", ["c1"]),
  toolResult("r1", "c1", "ok"),
];

/** Every block of the request that carries a breakpoint, as [where, its text or type]. */
function breakpoints(request: AnthropicRequest): string[] {
  const system = typeof request.system === "string" ? [] : (request.system ?? []);
  const marked = system.filter((b) => b.cache_control !== undefined).map((b) => `system: ${b.text}`);
  request.messages.forEach((m, i) => {
    for (const b of m.content) {
      if (b.cache_control === undefined) continue;
      marked.push(`#${i}: ${b.type === "text" ? b.text : b.type}`);
    }
  });
  return marked;
}

describe("toAnthropicRequest with cache breakpoints", () => {
  it("without `cache`, then no block carries a breakpoint and `system` stays a string", () => {
    const request = toAnthropicRequest(view);
    expect(request.system).toBe("rules");
    expect(breakpoints(request)).toStrictEqual([]);
  });

  it("with the last summary's id, then the system prompt, the summary and the last two messages are marked: four, the API's limit", () => {
    const request = toAnthropicRequest(view, { cache: { summaryId: "sum" } });
    expect(request.system).toStrictEqual([{ type: "text", text: "rules", cache_control: { type: "ephemeral" } }]);
    expect(breakpoints(request)).toStrictEqual([
      "system: rules",
      "#1: Summary of the earlier work: listed src/.",
      "#3: tool_use",
      "#4: tool_result",
    ]);
    expect(checkAnthropicRequest(request)).toStrictEqual([]);
  });

  it("without a summary id (a view with no summary), then three: the system prompt and the last two messages", () => {
    const request = toAnthropicRequest(view, { cache: {} });
    expect(breakpoints(request)).toStrictEqual(["system: rules", "#3: tool_use", "#4: tool_result"]);
  });

  it("when the summary is one of the last two messages, then it is marked once", () => {
    const request = toAnthropicRequest([system, userMessage("u1", "hi"), summary], { cache: { summaryId: "sum" } });
    expect(breakpoints(request)).toStrictEqual([
      "system: rules",
      "#0: hi",
      "#1: Summary of the earlier work: listed src/.",
    ]);
  });

  it("given a ttl, then every breakpoint carries it", () => {
    const request = toAnthropicRequest(view, { cache: { summaryId: "sum", ttl: "1h" } });
    const controls = [
      ...(Array.isArray(request.system) ? request.system : []),
      ...request.messages.flatMap((m) => m.content),
    ].flatMap((b) => (b.cache_control === undefined ? [] : [b.cache_control]));
    expect(controls).toHaveLength(4);
    for (const control of controls) expect(control).toStrictEqual({ type: "ephemeral", ttl: "1h" });
  });

  it("a request with a fifth breakpoint of the caller's own is reported by checkAnthropicRequest", () => {
    const request = toAnthropicRequest(view, { cache: { summaryId: "sum" } });
    const first = request.messages[0]?.content[0];
    if (first === undefined) throw new Error("expected a first block");
    first.cache_control = { type: "ephemeral" };
    expect(checkAnthropicRequest(request)).toStrictEqual(["5 cache_control breakpoints: at most 4"]);
  });

  it("given a ttl Anthropic does not take, then VALIDATION names cache.ttl and nothing is built", () => {
    const ttl = "2h" as unknown as "1h";
    expect(() => toAnthropicRequest(view, { cache: { ttl } })).toThrow(
      expect.objectContaining({ code: "VALIDATION", details: expect.objectContaining({ path: "cache.ttl" }) }),
    );
  });
});
