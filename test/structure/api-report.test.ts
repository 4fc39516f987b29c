/**
 * The public API of each library package is a reviewed surface: the declarations the global setup built
 * must match the reports checked in under api/ (API Extractor, scripts/api-report.ts). A change to what a
 * package exports fails here until `npx -y pnpm@12.4.2 api` rewrites the reports, so the diff of api/ shows
 * it to the reviewer.
 */
import { describe, expect, it } from "vitest";
import { entryPoints, runApiReports } from "../../scripts/api-report.ts";

describe("the public API reports", () => {
  it("cover every entry point a library package publishes", () => {
    const names = entryPoints().map((e) => (e.subpath === "" ? e.pkg : `${e.pkg}/${e.subpath}`));
    expect(names).toEqual(expect.arrayContaining(["core", "core/tokenizer", "store", "runtime", "eval"]));
  });

  it("match the built declarations (npx -y pnpm@12.4.2 api rewrites them after an intended change)", () => {
    const results = runApiReports(false);
    expect(results.filter((r) => r.changed || !r.ok).map((r) => `${r.report}: ${r.messages.join("; ")}`)).toEqual([]);
  }, 300_000);
});
