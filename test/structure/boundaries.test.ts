/**
 * Seams the code must keep (issue 14): the storage engine knows no feature; what differs between
 * PostgreSQL and SQLite lives in the engine's dialect folders only; and no package reaches into another
 * package's sources (tests may, `src` may not).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const PACKAGES = join(ROOT, "packages");
const STORE_SRC = join(PACKAGES, "store/src");
const ENGINE = join(STORE_SRC, "engine");

/** The folders of the engine that hold one dialect each. */
const DIALECT_FOLDERS = ["postgres", "sqlite"].map((d) => join(ENGINE, d) + sep);

/** The store's folders above the engine: features and what uses them. */
const NOT_ENGINE = readdirSync(STORE_SRC).filter(
  (name) => name !== "engine" && statSync(join(STORE_SRC, name)).isDirectory(),
);

/** SQL and branches only a dialect folder may hold. */
const DIALECT_SPECIFIC: [string, RegExp][] = [
  ["an engine comparison", /[!=]==\s*"(?:postgres|sqlite)"|"(?:postgres|sqlite)"\s*[!=]==/],
  ["forUpdate", /\bforUpdate\b/],
  ["skipLocked", /\bskipLocked\b/],
  ["pg_ functions", /\bpg_[a-z]/],
  ["json_extract", /\bjson_extract\b/],
  ["strpos", /\bstrpos\b/],
  ["instr", /\binstr\s*\(/],
];

/** Every .ts file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Every package's src folder. */
function packageSources(): string[] {
  return readdirSync(PACKAGES).flatMap((name) => {
    const src = join(PACKAGES, name, "src");
    return statSync(src, { throwIfNoEntry: false })?.isDirectory() ? sources(src) : [];
  });
}

/** The module specifiers a file imports (or re-exports) from. */
function imports(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1] ?? "");
}

describe("boundaries", () => {
  it("the engine folder imports no folder above it (features, the opener, the runtime)", () => {
    const offending: string[] = [];
    for (const file of sources(ENGINE)) {
      for (const target of imports(file).filter((t) => t.startsWith("."))) {
        const to = relative(STORE_SRC, join(file, "..", target)).split(sep)[0] ?? "";
        if (NOT_ENGINE.includes(to)) offending.push(`${relative(ROOT, file)} → ${target}`);
      }
    }
    expect(sources(ENGINE).length).toBeGreaterThan(10);
    expect(offending).toEqual([]);
  });

  it("dialect-specific SQL and engine branches appear only in the dialect folders", () => {
    const offending: string[] = [];
    for (const file of packageSources()) {
      if (DIALECT_FOLDERS.some((folder) => file.startsWith(folder))) continue;
      const text = readFileSync(file, "utf8");
      for (const [what, pattern] of DIALECT_SPECIFIC) {
        if (pattern.test(text)) offending.push(`${relative(ROOT, file)}: ${what}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it("the scan finds dialect-specific code in the dialect folders", () => {
    const dialectText = DIALECT_FOLDERS.flatMap((folder) => sources(folder))
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    for (const [, pattern] of DIALECT_SPECIFIC.slice(1)) expect(dialectText).toMatch(pattern);
  });

  it("no package's src imports another package's sources (only its entry points)", () => {
    const offending: string[] = [];
    for (const file of packageSources()) {
      const own = relative(PACKAGES, file).split(sep)[0] ?? "";
      for (const target of imports(file)) {
        const resolved = target.startsWith(".") ? relative(PACKAGES, join(file, "..", target)) : "";
        const other = resolved.split(sep)[0] ?? "";
        const intoOther = resolved !== "" && !resolved.startsWith("..") && other !== own;
        if (intoOther || /(?:^|\/)packages\/[^/]+\/src\b|^@palimpsest\/[^/]+\/src\b/.test(target))
          offending.push(`${relative(ROOT, file)} → ${target}`);
      }
    }
    expect(packageSources().length).toBeGreaterThan(100);
    expect(offending).toEqual([]);
  });
});
