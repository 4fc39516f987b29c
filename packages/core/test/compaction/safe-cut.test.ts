import { derivedId } from "@palimpsest/core";
import { summarizeArguments } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

/** A lone (unpaired) surrogate anywhere in the text. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("cuts never split a surrogate pair", () => {
  it("given an emoji straddling the clip point of tool arguments, then the clip drops the whole emoji", () => {
    const args = `${"a".repeat(98)}😀${"b".repeat(20)}`;
    const summary = summarizeArguments(args);
    expect(summary).toBe(`${"a".repeat(98)}…`);
    expect(LONE_SURROGATE.test(summary)).toBe(false);
  });

  it("given an emoji straddling the clip point of one argument value, then no half surrogate is kept", () => {
    for (const pad of ["", "x"]) {
      const summary = summarizeArguments(JSON.stringify({ text: `${pad}${"😀".repeat(40)}` }));
      expect(LONE_SURROGATE.test(summary)).toBe(false);
      expect(summary.endsWith("…")).toBe(true);
    }
  });

  it("given a long id of emoji, then the shortened derived id keeps whole characters and stays distinct", () => {
    const ids = ["😀".repeat(150), `x${"😀".repeat(150)}`];
    const derived = ids.map((id) => derivedId(id, "trim"));
    for (const d of derived) {
      expect(d.length).toBeLessThanOrEqual(200);
      expect(LONE_SURROGATE.test(d)).toBe(false);
      expect(d.endsWith("~trim")).toBe(true);
    }
    expect(new Set(derived).size).toBe(2);
  });
});
