import { customProfile, PROVIDER_PROFILES } from "@palimpsest/core";
import { checkAnthropicRequest, toAnthropicRequest } from "@palimpsest/projections";
import { compactRange, openPalimpsest, type Palimpsest, resolveCompaction } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The texts of the blocks a request marks as breakpoints, in order (the system prompt as "system"). */
function marked(request: ReturnType<typeof toAnthropicRequest>): string[] {
  const system = Array.isArray(request.system) && request.system[0]?.cache_control !== undefined ? ["system"] : [];
  return [
    ...system,
    ...request.messages.flatMap((m) =>
      m.content.flatMap((b) => (b.cache_control === undefined ? [] : [b.type === "text" ? b.text : b.type])),
    ),
  ];
}

describe("the view's last summary, for a prompt-cache breakpoint", () => {
  let palimpsest: Palimpsest;
  beforeAll(async () => {
    palimpsest = await openPalimpsest({ url: ":memory:" });
  });
  afterAll(() => palimpsest.close());

  it("names the newest summary after each compaction, the same after a resume, and toAnthropicRequest marks it", async () => {
    const session = await palimpsest.startSession({ model: "claude-sonnet-4", contextWindow: 200_000 });
    await session.append({ role: "system", content: "You are a careful agent." });
    const turns = ["one", "two", "three", "four", "five", "six"];
    for (const t of turns) {
      await session.append({ id: `u-${t}`, role: "user", content: `step ${t}` });
      await session.append({ id: `a-${t}`, role: "assistant", content: `done ${t}` });
    }
    expect(session.view().lastSummaryId).toBeUndefined();

    await compactRange(session, { fromId: "u-one", toId: "a-two", summary: "Steps one and two are done." });
    const first = session.view().lastSummaryId;
    expect(first).toBeDefined();
    expect(session.view().messages.find((m) => m.id === first)?.content).toStrictEqual([
      expect.objectContaining({ type: "text", text: expect.stringContaining("Steps one and two are done.") }),
    ]);

    // A second compaction after the first summary keeps it: the newest summary is the one to mark.
    await compactRange(session, { fromId: "u-three", toId: "a-four", summary: "Steps three and four are done." });
    const view = session.view();
    expect(view.messages.some((m) => m.id === first)).toBe(true);
    expect(view.lastSummaryId).not.toBe(first);
    expect((await palimpsest.resume(session.id)).view().lastSummaryId).toBe(view.lastSummaryId);

    const request = toAnthropicRequest(view.messages, { cache: { summaryId: view.lastSummaryId } });
    const texts = marked(request);
    expect(texts).toHaveLength(4);
    expect(texts[0]).toBe("system");
    expect(texts[1]).toContain("Steps three and four are done.");
    expect(texts.slice(2)).toStrictEqual(["step six", "done six"]);
    expect(checkAnthropicRequest(request)).toStrictEqual([]);
  });

  it("the policy is told of the breakpoint through the profile's cache rule, as docs/compaction.md shows", async () => {
    const profile = customProfile({ name: "anthropic", cache: { summaryBreakpoint: true } }, "anthropic");
    const told = await openPalimpsest({ url: ":memory:", compaction: { auto: true, policy: "cost-optimal", profile } });
    try {
      const session = await told.startSession({ model: "claude-sonnet-4", contextWindow: 200_000 });
      const resolved = resolveCompaction({ auto: true, policy: "cost-optimal", profile }, session.state, () => 1);
      expect(resolved.profile).toMatchObject({
        name: "anthropic",
        cache: { kind: "explicit-breakpoint", summaryBreakpoint: true },
        prices: PROVIDER_PROFILES.anthropic?.prices,
      });
      expect(PROVIDER_PROFILES.anthropic?.cache.summaryBreakpoint).toBeUndefined();
      expect(() => customProfile({}, "anthropc")).toThrow(/unknown profile anthropc/);
    } finally {
      await told.close();
    }
  });
});
