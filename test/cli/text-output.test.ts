import { describe, expect, it } from "vitest";
import { table } from "../../packages/cli/src/output.ts";
import { ticks } from "../../packages/cli/src/report-html/chart-scale.ts";

describe("CLI text output", () => {
  it("pads table columns by the width a terminal shows, so wide characters keep the columns aligned", () => {
    const text = table(
      ["name", "tokens"],
      [
        ["plain", 1],
        ["日本語", 22],
        ["e\u0301t\u00e9", 333],
      ],
    );
    const lines = text.split("\n");
    // "日本語" is 3 characters and 6 columns; "étè" with a combining accent is 4 code units and 3 columns
    expect(lines).toEqual(["name    tokens", "plain   1", "日本語  22", "e\u0301t\u00e9     333"]);
  });

  it("chart ticks are round steps from 0 to at least the maximum, without float drift", () => {
    expect(ticks(0, 6)).toEqual([0]);
    expect(ticks(950, 6)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(ticks(1000, 6)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(ticks(0.3, 3)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(ticks(7, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});
