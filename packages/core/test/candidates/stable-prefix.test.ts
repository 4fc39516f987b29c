import { type LiveEntry, stablePrefixEnd, tailBudget } from "@palimpsest/core";
import { selectSpan } from "@palimpsest/core/testing";
import { assistantMessage, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { callTools, ids, live, output, system } from "../compaction/view-builders.ts";
import { at, exchanges } from "./precompact-fixtures.ts";

const whole = (view: readonly LiveEntry[]) => ({ headEnd: 1, tailStart: view.length, pinned: new Set<number>() });

describe("stablePrefixEnd: what a background job may summarize", () => {
  it("given a long session, then the prefix runs from the head to the protected tail and no further", () => {
    const view = exchanges(12);
    const span = selectSpan(view, tailBudget(200_000), 0);
    const end = stablePrefixEnd(view, span, Number.MAX_SAFE_INTEGER);
    expect(end).toBe(span.tailStart);
    expect(ids(view.slice(span.headEnd, end))).not.toContain("u12");
    expect(ids(view.slice(end))).toEqual(["r11", "u12", "a12", "t12", "r12"]);
  });

  it("given an assistant message whose call has no result yet, then the prefix stops before it", () => {
    const view = [
      live(system("sys"), 10),
      live(userMessage("u1", "go"), 10),
      live(callTools("a1", [["c1", "shell"]]), 10),
      live(output("t1", "c1", "ok"), 10),
      live(callTools("a2", [["c2", "shell"]]), 10),
      live(userMessage("u2", "steer"), 10),
    ];
    expect(stablePrefixEnd(view, whole(view), 99)).toBe(4);
  });

  it("given entries from the turn in progress (after the last completed turn), then the prefix stops at them", () => {
    const view = exchanges(3);
    expect(ids(view.slice(1, stablePrefixEnd(view, whole(view), 3)))).toEqual([
      "u1",
      "a1",
      "t1",
      "r1",
      "u2",
      "a2",
      "t2",
      "r2",
    ]);
  });

  it("given a stop between a call and its results, then the prefix backs off before the call", () => {
    const view = [
      at(1, live(system("sys"), 10)),
      at(1, live(userMessage("u1", "go"), 10)),
      at(1, live(assistantMessage("r0", "ok"), 10)),
      at(1, live(userMessage("u2", "more"), 10)),
      at(
        1,
        live(
          callTools("a1", [
            ["c1", "shell"],
            ["c2", "shell"],
          ]),
          10,
        ),
      ),
      at(1, live(output("t1", "c1", "ok"), 10)),
      at(2, live(output("t2", "c2", "ok"), 10)),
    ];
    expect(stablePrefixEnd(view, whole(view), 1)).toBe(4);
  });

  it("given a pinned last user message inside the middle, then the prefix runs past it (a compaction summarizes past it too)", () => {
    const view = exchanges(3);
    const pinned = { headEnd: 1, tailStart: view.length, pinned: new Set([5, 6]) };
    expect(stablePrefixEnd(view, pinned, 99)).toBe(stablePrefixEnd(view, whole(view), 99));
    expect(stablePrefixEnd(view, pinned, 99)).toBeGreaterThan(6);
  });
});
