import { capText } from "@palimpsest/core/testing";
import { describe, expect, it } from "vitest";

const MARKER = /\[… (\d+) chars omitted …\]/g;

/** Characters the markers of `text` stand for, plus the characters shown: the original's length. */
function originalLength(text: string): number {
  let length = text.length;
  for (const m of text.matchAll(/[ \n]?\[… (\d+) chars omitted …\][ \n]?/g)) length += Number(m[1]) - m[0].length;
  return length;
}

describe("capText", () => {
  it("keeps a text within the cap whole", () => {
    expect(capText("short", 10)).toBe("short");
  });

  it("counts exactly what it removed, always more than the marker it puts in", () => {
    const text = "a".repeat(61);
    const cut = capText(text, 60);
    const [marker] = cut.match(MARKER) ?? [];
    expect(cut.length).toBeLessThanOrEqual(60);
    expect(originalLength(cut)).toBe(61);
    expect(Number(/\d+/.exec(marker ?? "")?.[0])).toBeGreaterThan((marker ?? "").length);
  });

  it("never nests a marker: a cut through an earlier marker folds it into one", () => {
    const inner = capText(`path=/home/USER/projects/spotter-w${"x".repeat(300)}ring=`, 120, true);
    const outer = capText(`${"h".repeat(40)} ${inner} ${"t".repeat(40)}`, 90, true);
    expect(outer.length).toBeLessThanOrEqual(90);
    expect(outer.match(MARKER)).toHaveLength(1);
    expect(outer).not.toMatch(/\[…[^\]]*\[…/);
    expect(originalLength(outer)).toBe(40 + 1 + originalLength(inner) + 1 + 40);
  });

  it("is idempotent", () => {
    const once = capText("line\n".repeat(500), 300);
    expect(capText(once, 300)).toBe(once);
  });
});
