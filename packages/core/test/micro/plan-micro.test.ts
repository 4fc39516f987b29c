import type { MicroPlan } from "@palimpsest/core";
import { execute, summaryReplacement, supersedeData } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { addTurn, conversation, markers, pass, plan, settings, viewIds } from "./micro-fixtures.ts";

const SHORT = { text: "## Completed Actions\n- ran it" };

/** Runs passes until the planner has nothing left to absorb; returns the plans. */
function exhaust(state: Parameters<typeof pass>[0], tailTokens = 60): MicroPlan[] {
  const plans: MicroPlan[] = [];
  for (let i = 0; i < 50; i++) {
    const planned = pass(state, SHORT, settings(), tailTokens);
    plans.push(planned);
    if (planned.kind === "none" || planned.kind === "skip") break;
  }
  return plans;
}

describe("micro planner: absorbing", () => {
  it("given a fresh session, when planning, then the oldest exchange after the head is absorbed, placed at itself", () => {
    const planned = plan(conversation(4));
    expect(planned).toMatchObject({ kind: "absorb", targets: ["r1"], at: "r1", passedOver: [] });
  });

  it("given a live marker, then it and the next exchange are the targets and the marker moves to that exchange", () => {
    const state = conversation(4);
    pass(state, SHORT);
    const [marker] = markers(state);
    expect(plan(state)).toMatchObject({ kind: "absorb", targets: [marker, "a2", "t2"], at: "a2" });
  });

  it("when passes run to the end, then user messages stay, one assistant marker is live just before the first un-absorbed message", () => {
    const state = conversation(5);
    for (let i = 0; i < 20; i++) {
      const next = plan(state);
      if (next.kind !== "absorb") break;
      const last = next.exchange.at(-1)?.message.id;
      const follower = viewIds(state)[viewIds(state).indexOf(last ?? "") + 1];
      pass(state, SHORT);
      const live = markers(state);
      expect(live).toHaveLength(1);
      const index = viewIds(state).indexOf(live[0] ?? "");
      expect(state.live[index]?.message.role).toBe("assistant");
      expect(viewIds(state)[index + 1]).toBe(follower);
    }
    for (let n = 1; n <= 5; n++) expect(viewIds(state)).toContain(`u${n}`);
  });

  it("then the protected head and tail (the last user message and last reply) are untouched", () => {
    const state = conversation(5);
    const plans = exhaust(state);
    expect(plans.at(-1)?.kind).toBe("none");
    expect(viewIds(state).slice(0, 3)).toEqual(["u1", "a1", "t1"]);
    expect(viewIds(state).slice(-3)).toEqual(["u5", expect.stringMatching(/^marker-/), "r5"]);
  });

  it("given a batch summary, then it is never a target and the cursor starts after it", () => {
    const state = conversation(6);
    const summary = summaryReplacement("batch", "earlier turns", 20);
    execute(state, { type: "supersede", data: supersedeData("b1", ["r1", "u2", "a2", "t2", "r2"], [summary], 0) });
    expect(plan(state)).toMatchObject({ kind: "absorb", targets: ["a3", "t3"] });
    for (const planned of exhaust(state)) {
      if (planned.kind === "absorb") expect(planned.targets).not.toContain("batch");
    }
    expect(viewIds(state).slice(0, 5)).toEqual(["u1", "a1", "t1", "batch", "u3"]);
  });
});

describe("micro planner: poison exchanges", () => {
  it("given a summarizer failing on one exchange, then it is retried 3 times, then passed over and the cursor moves past it", () => {
    const state = conversation(4);
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(pass(state, "fail")).toMatchObject({ kind: "absorb", at: "r1" });
    }
    expect(state.micro.failedExchanges).toEqual(["r1", "r1", "r1"]);
    expect(pass(state, SHORT)).toMatchObject({ kind: "absorb", targets: ["a2", "t2"], passedOver: [["r1"]] });
    expect(viewIds(state)).toContain("r1");
    expect(plan(state)).toMatchObject({ kind: "absorb", at: "r2" });
  });

  it("given only a poison exchange before the tail, then the plan is skip, and a new turn is absorbed past it", () => {
    const state = conversation(2);
    for (let attempt = 1; attempt <= 3; attempt++) pass(state, "fail", settings(), 120);
    expect(plan(state, settings(), 120)).toMatchObject({ kind: "skip", exchange: ["r1"] });
    addTurn(state, 3);
    expect(plan(state, settings(), 120)).toMatchObject({ kind: "absorb", targets: ["a2", "t2"], passedOver: [["r1"]] });
  });

  it("given a batch compaction, then the failure history is reset", () => {
    const state = conversation(4);
    pass(state, "fail");
    const summary = summaryReplacement("batch", "earlier", 5);
    execute(state, { type: "supersede", data: supersedeData("b1", ["u2"], [summary], state.viewVersion) });
    expect(state.micro).toEqual({ failedExchanges: [], staleDefrags: [] });
  });
});

describe("micro planner: defrag", () => {
  const micro = settings({ defragLimitTokens: 200 });
  const LONG = { text: `## Completed Actions\n- ${"x".repeat(400)}` };

  it("given a marker under the limit, then the next exchange is absorbed", () => {
    const state = conversation(4);
    pass(state, SHORT, micro);
    expect(plan(state, micro).kind).toBe("absorb");
  });

  it("given a marker over the limit, then it alone is defragged, committed only when it shrank, and not retried until it grows", () => {
    const state = conversation(5);
    pass(state, LONG, micro);
    const [marker] = markers(state);
    const defrag = pass(state, LONG, micro);
    expect(defrag).toMatchObject({ kind: "defrag", marker: { message: { id: marker } } });
    expect(markers(state)).toEqual([marker]);
    expect(state.micro.staleDefrags).toEqual([marker]);
    expect(plan(state, micro)).toMatchObject({ kind: "absorb", at: "a2" });

    pass(state, LONG, micro);
    const before = viewIds(state).filter((id) => !id.startsWith("marker-"));
    const next = plan(state, micro);
    expect(pass(state, SHORT, micro)).toMatchObject({ kind: "defrag" });
    expect(viewIds(state).filter((id) => !id.startsWith("marker-"))).toEqual(before);
    expect(next.kind).toBe("defrag");
    expect(plan(state, micro)).toMatchObject({ kind: "absorb", at: "r2" });
  });
});

describe("micro planner: cadence and switches", () => {
  it("given every N turns, then it runs only on multiples of N (N clamped to at least 1)", () => {
    expect(plan(conversation(3), settings({ everyNTurns: 2 })).kind).toBe("none");
    expect(plan(conversation(4), settings({ everyNTurns: 2 })).kind).toBe("absorb");
    expect(settings({ everyNTurns: 0 }).everyNTurns).toBe(1);
  });

  it("given the store switch or the session's switch off, then nothing is planned", () => {
    expect(plan(conversation(4), settings({ enabled: false }))).toMatchObject({ kind: "none" });
    const optedOut = conversation(4, 100, { settings: { microCompact: false } });
    expect(plan(optedOut)).toMatchObject({ kind: "none", reason: expect.stringMatching(/session/) });
  });
});
