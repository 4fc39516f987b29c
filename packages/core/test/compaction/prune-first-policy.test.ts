import {
  applySupersede,
  customProfile,
  type LiveEntry,
  type Message,
  messageText,
  pruneFirstPolicy,
} from "@palimpsest/core";
import { danglingDuplicateStubs, duplicateReference, duplicateStubText } from "@palimpsest/core/testing";
import { assistantMessage, supersedeData, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { callTools, countTokens, live, output, policyInput, system } from "./view-builders.ts";

const policy = pruneFirstPolicy({ countTokens });

/** A view after one compaction: threshold 100,000 and runway target 80,000 on the 200K test window. */
function view(sizes: { r0: number; r1: number }): LiveEntry[] {
  return [
    live(system("sys"), 100),
    live(callTools("a0", [["c0", "shell", '{"cmd":"npm test","cwd":"/repo"}']]), 100),
    live(output("r0", "c0", "FAIL lots of output", true), sizes.r0),
    live(callTools("a1", [["c1", "read_file", '{"path":"src/a.ts"}']]), 100),
    live(output("r1", "c1", "file text"), sizes.r1),
    live(callTools("a2", [["c2", "shell", '{"cmd":"ls"}']]), 100),
    live(output("r2", "c2", "same listing"), 300),
    live(callTools("a3", [["c3", "shell", '{"cmd":"ls"}']]), 100),
    live(output("r3", "c3", "same listing"), 300),
    live(callTools("a4", [["c4", "grep"]]), 100),
    live(output("r4", "c4", "short"), 50),
    live(userMessage("last-u", "and now?"), 100),
    live(assistantMessage("last-a", "here is the answer"), 9_000),
  ];
}

const textOf = (m: Message) => messageText(m);

describe("pruneFirstPolicy: pruning", () => {
  it("given long and duplicated middle outputs, then it stubs them in one prune that lands under the runway", () => {
    const plan = policy.plan(policyInput(view({ r0: 60_000, r1: 30_000 }), { compactions: 1 }));
    if (plan.kind !== "prune") throw new Error(plan.reason);
    expect(plan.targets).toEqual(["r0", "r2"]);
    expect(plan.tokensBefore).toBe(100_350);
    const added = plan.replacements.reduce((sum, r) => sum + r.tokens, 0);
    expect(plan.tokensAfter).toBe(100_350 - 60_300 + added);
    expect(plan.tokensAfter).toBeLessThanOrEqual(80_000);
  });

  it("given a long output, then its stub keeps the call id, says what ran, how it ended and how big it was", () => {
    const plan = policy.plan(policyInput(view({ r0: 60_000, r1: 30_000 }), { compactions: 1 }));
    if (plan.kind !== "prune") throw new Error(plan.reason);
    const stub = plan.replacements[0];
    expect(stub).toMatchObject({ kind: "stub", at: "r0", message: { role: "tool", toolCallId: "c0", isError: true } });
    if (stub === undefined) throw new Error("no stub");
    const text = textOf(stub.message);
    expect(text).not.toContain("\n");
    expect(text).toContain('shell(cmd="npm test", cwd="/repo") → error, 19 chars / 60,000 tokens');
    expect(stub.tokens).toBe(countTokens(stub.message));
  });

  it("given identical outputs, then the older ones point at the newest, which is kept", () => {
    const plan = policy.plan(policyInput(view({ r0: 60_000, r1: 30_000 }), { compactions: 1 }));
    if (plan.kind !== "prune") throw new Error(plan.reason);
    const dedupe = plan.replacements.find((r) => r.at === "r2");
    expect(dedupe?.message.toolCallId).toBe("c2");
    expect(textOf(dedupe?.message ?? userMessage("x", ""))).toContain("identical to the later result of call c3");
    expect(plan.targets).not.toContain("r3");
  });

  it("given identical outputs whose newest copy is pruned in the same pass, then no stub points at it", () => {
    const entries = view({ r0: 60_000, r1: 30_000 }).map((e) =>
      e.message.id.match(/^r[23]$/) ? { ...e, tokens: 3_000 } : e,
    );
    const plan = policy.plan(policyInput(entries, { compactions: 1 }));
    if (plan.kind !== "prune") throw new Error(plan.reason);
    expect(plan.targets).toEqual(["r0", "r2", "r3"]);
    expect(plan.replacements.map((r) => duplicateReference(r.message))).toEqual([undefined, undefined, undefined]);
    const after = applySupersede(entries, supersedeData("p", plan.targets, plan.replacements, 0, { mode: "prune" }), 2);
    expect(danglingDuplicateStubs(after)).toEqual([]);
  });

  it("given a pointer an earlier prune left, then a later prune keeps the copy it names whole", () => {
    const pointer = output("r2.stub", "c2", duplicateStubText('shell(cmd="ls") → ok', "c3"));
    const entries = view({ r0: 60_000, r1: 30_000 }).map((e) => {
      if (e.message.id === "r2") return live(pointer, 20, { compactionId: "p0", kind: "stub" });
      return e.message.id === "r3" ? { ...e, tokens: 3_000 } : e;
    });
    const plan = policy.plan(policyInput(entries, { compactions: 1 }));
    if (plan.kind !== "prune") throw new Error(plan.reason);
    expect(plan.targets).toEqual(["r0"]);
    expect(danglingDuplicateStubs(entries)).toEqual([]);
    expect(danglingDuplicateStubs(entries.filter((e) => e.message.id !== "r3"))).toEqual(["r2.stub"]);
  });

  it("given outputs of protected tools, then they are never pruned, however long", () => {
    const plan = policy.plan(policyInput(view({ r0: 60_000, r1: 30_000 }), { compactions: 1 }));
    expect(plan.kind === "prune" && plan.targets).not.toContain("r1");
  });

  it("given a profile with no protected tools, then read_file outputs are pruned too", () => {
    const profile = customProfile({ protectedTools: [] });
    const plan = policy.plan(policyInput(view({ r0: 60_000, r1: 30_000 }), { compactions: 1, profile }));
    expect(plan).toMatchObject({ kind: "prune", targets: ["r0", "r1", "r2"] });
  });
});

describe("pruneFirstPolicy: the runway", () => {
  it("given a prune that would not reach the runway target, then it falls through to a summary in the same pass", () => {
    const plan = policy.plan(policyInput(view({ r0: 5_000, r1: 85_000 }), { compactions: 1 }));
    expect(plan.kind).toBe("summary");
    expect(plan.reason).toContain("above the runway target of 55000");
    expect(plan.kind === "summary" && plan.targets).toContain("r1");
  });

  it("given a larger runway minimum, then the same prune is refused and it summarizes", () => {
    const profile = customProfile({ runway: { pruneMinimumTokens: 70_000 } });
    const plan = policy.plan(policyInput(view({ r0: 60_000, r1: 30_000 }), { compactions: 1, profile }));
    expect(plan.kind).toBe("summary");
  });

  it("given a window whose threshold is under the runway minimum, then it summarizes, saying no prune fits (no negative target)", () => {
    const profile = customProfile({ runway: { pruneMinimumTokens: 120_000 } });
    const plan = policy.plan(policyInput(view({ r0: 60_000, r1: 30_000 }), { compactions: 1, profile }));
    expect(plan.kind).toBe("summary");
    expect(plan.reason).toContain(
      "the window leaves no runway for a prune (its threshold of 100000 is under the 120000",
    );
    expect(plan.reason).not.toMatch(/runway target of -/);
  });

  it("given summaries cooling down after a failure, then an accepted prune still runs but a fall-through does not", () => {
    const history = { compactions: [], failures: [{ reason: "timeout" as const, at: 1_000 }], now: 2_000 };
    const pruned = policy.plan(policyInput(view({ r0: 60_000, r1: 30_000 }), { compactions: 1, history }));
    expect(pruned.kind).toBe("prune");
    const refused = policy.plan(policyInput(view({ r0: 5_000, r1: 85_000 }), { compactions: 1, history }));
    expect(refused.kind).toBe("none");
    expect(refused.reason).toContain("summaries are backing off");
  });

  it("given a view under the threshold, when not forced, then nothing happens", () => {
    expect(policy.plan(policyInput(view({ r0: 1_000, r1: 1_000 }), { compactions: 1 })).kind).toBe("none");
  });
});
