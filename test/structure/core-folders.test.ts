/**
 * The folders of packages/core/src import each other without a cycle: core has many small folders and no
 * fixed layers, so this checks the import graph itself (a cycle is reported as the folders on it).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { folderEdges } from "./folder-imports.ts";

const SRC = join(import.meta.dirname, "../../packages/core/src");

/** The folders on some import cycle, each cycle once (depth-first search for a back edge). */
function cycles(edges: readonly [string, string][]): string[][] {
  const next = new Map<string, string[]>();
  for (const [from, to] of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const found: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (folder: string) => {
    const at = path.indexOf(folder);
    if (at !== -1) {
      found.push([...path.slice(at), folder]);
      return;
    }
    if (done.has(folder)) return;
    path.push(folder);
    for (const to of next.get(folder) ?? []) visit(to);
    path.pop();
    done.add(folder);
  };
  for (const folder of next.keys()) visit(folder);
  return found;
}

describe("packages/core/src folders", () => {
  it("finds a cycle when there is one (the check itself)", () => {
    expect(
      cycles([
        ["a", "b"],
        ["b", "c"],
        ["c", "a"],
        ["c", "d"],
      ]),
    ).toEqual([["a", "b", "c", "a"]]);
    expect(cycles([["a", "b"]])).toEqual([]);
  });

  it("import each other without a cycle", () => {
    const edges = [...folderEdges(SRC)].map((e) => e.split(" → ") as [string, string]);
    expect(edges.length).toBeGreaterThan(20); // the scan reads the imports
    expect(cycles(edges).map((cycle) => cycle.join(" → "))).toEqual([]);
  });
});
