/**
 * The public API of each library package is a reviewed surface: the declarations the global setup built
 * must match the reports checked in under api/ (API Extractor, scripts/api-report.ts). A change to what a
 * package exports fails here until `npx -y pnpm@12.4.2 api` rewrites the reports, so the diff of api/ shows
 * it to the reviewer.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { entryPoints, runApiReports } from "../../scripts/api-report.ts";

describe("the public API reports", () => {
  it("cover every entry point a library package publishes", () => {
    const names = entryPoints().map((e) => (e.subpath === "" ? e.pkg : `${e.pkg}/${e.subpath}`));
    expect(names).toEqual(expect.arrayContaining(["core", "core/tokenizer", "store", "runtime", "eval"]));
  });

  it("name no type a user of a package's main entry cannot import (no forgotten export)", () => {
    // A secondary entry (testing, tokenizer, live) may name its package's main-entry types: users import those from the main entry.
    const main = entryPoints().filter((e) => e.subpath === "");
    const root = join(import.meta.dirname, "../..");
    const forgotten = main.flatMap((e) =>
      [
        ...readFileSync(join(root, "api", `${e.pkg}.api.md`), "utf8").matchAll(
          /The symbol "([^"]+)" needs to be exported/g,
        ),
      ].map((m) => `${e.pkg}: ${m[1]}`),
    );
    expect(main.length).toBeGreaterThan(5);
    expect(forgotten).toEqual([]);
  });

  it("match the built declarations (npx -y pnpm@12.4.2 api rewrites them after an intended change)", () => {
    const results = runApiReports(false);
    expect(results.filter((r) => r.changed || !r.ok).map((r) => `${r.report}: ${r.messages.join("; ")}`)).toEqual([]);
  }, 300_000);
});
