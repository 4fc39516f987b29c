/**
 * The folders of packages/store/src and the imports between them. Issue 14 removes the folder cycles
 * (the engine knowing audit, hand-off, pre-compaction and the mirror; the runtime and the features
 * knowing each other); until then this pins the cycles there are, so no change adds another: a new one
 * fails here, and a removed one is taken off the list.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../packages/store/src");

/** Every .ts file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** "from → to" for each import of one top-level folder of SRC from another (relative imports only). */
function folderEdges(): Set<string> {
  const edges = new Set<string>();
  for (const file of sources(SRC)) {
    const from = relative(SRC, file).split(sep)[0] ?? "";
    if (from.endsWith(".ts")) continue; // index.ts: the package's entry re-exports every folder
    for (const [, target] of readFileSync(file, "utf8").matchAll(/from "(\.{1,2}\/[^"]+)"/g)) {
      const to = relative(SRC, join(file, "..", target ?? "")).split(sep)[0] ?? "";
      if (to !== from && !to.endsWith(".ts")) edges.add(`${from} → ${to}`);
    }
  }
  return edges;
}

describe("packages/store/src folders", () => {
  it("import each other in no cycle but the ones issue 14 is to remove", () => {
    const edges = folderEdges();
    expect(edges.size).toBeGreaterThan(10); // the scan reads the imports
    const cycles = [...edges]
      .map((e) => e.split(" → ") as [string, string])
      .filter(([a, b]) => a < b && edges.has(`${b} → ${a}`))
      .map(([a, b]) => `${a} ↔ ${b}`)
      .sort();
    expect(cycles).toEqual([]);
  });
});
