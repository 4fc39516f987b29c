/**
 * Seams the code must keep (issue 14): the storage engine knows no feature; what differs between
 * PostgreSQL and SQLite lives in the engine's dialect folders only; no package reaches into another
 * package's sources (tests may, `src` may not); and the store's entry points load only what their users
 * install (the memory store no query builder, driver or test framework; the main entry no vitest).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const PACKAGES = join(ROOT, "packages");
const STORE_SRC = join(PACKAGES, "store/src");
const ENGINE = join(STORE_SRC, "engine");

/** The folders of the engine that hold one dialect each. */
const DIALECT_FOLDERS = ["postgres", "sqlite"].map((d) => join(ENGINE, d) + sep);

/** The store's folders above the engine: features and what uses them (every folder but the engine and the one below it). */
const NOT_ENGINE = readdirSync(STORE_SRC).filter(
  // encryption (the keyring and the cipher) sits below the engine, which seals content with it
  (name) => !["engine", "encryption"].includes(name) && statSync(join(STORE_SRC, name)).isDirectory(),
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

/**
 * The packages a module loads when it runs, following its relative imports: every import and re-export
 * but the type-only ones (`import type`, `export type`: erased from the JavaScript), dynamic imports included.
 */
function loadedPackages(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
    const specifiers = [...text.matchAll(/\bimport\(\s*"([^"]+)"/g)].map((m) => m[1] ?? "");
    for (const statement of source.statements) {
      const typeOnly =
        (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly === true) ||
        (ts.isExportDeclaration(statement) && statement.isTypeOnly);
      const specifier =
        ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement.moduleSpecifier : undefined;
      if (!typeOnly && specifier !== undefined && ts.isStringLiteral(specifier)) specifiers.push(specifier.text);
    }
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) visit(join(dirname(file), specifier));
      else
        packages.add(
          specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : (specifier.split("/")[0] ?? ""),
        );
    }
  };
  visit(entry);
  return packages;
}

describe("boundaries", () => {
  it("the store's memory store loads no query builder, driver or vitest; its main entry no vitest", () => {
    const heavy = ["kysely", "pg", "better-sqlite3", "vitest"];
    expect([...loadedPackages(join(STORE_SRC, "testing.ts"))].filter((p) => heavy.includes(p))).toEqual([]);
    expect(loadedPackages(join(STORE_SRC, "index.ts"))).not.toContain("vitest");
    // The scan follows imports: the main entry loads kysely and the drivers' openers, the contract vitest.
    expect([...loadedPackages(join(STORE_SRC, "index.ts"))]).toEqual(
      expect.arrayContaining(["kysely", "pg", "better-sqlite3"]),
    );
    expect([...loadedPackages(join(STORE_SRC, "contract.ts"))]).toContain("vitest");
  });

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
