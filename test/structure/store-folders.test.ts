/**
 * The folders of packages/store/src and the imports between them: a stack of layers (docs/architecture.md,
 * "The store's folders"), each folder importing only folders of lower layers, so no cycle can form. A new
 * folder must be placed in a layer here; an import upwards or sideways fails.
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

/** Bottom to top; the folders of one layer do not import each other. */
const LAYERS: readonly (readonly string[])[] = [
  ["engine"], // the log: one store over a dialect per engine
  ["audit", "candidate-store", "handoff", "mirror"], // features: their tables, migrations and erase statements
  ["open"], // the composition root: the engine with every feature
  ["runtime"], // Session: decide, append, fold; rewrite
  ["compaction"], // the executor, compact, micro, range, the policy registry
  ["precompact"], // background candidates: scheduler, job, the hit
  ["telemetry"], // recording compaction passes
  ["palimpsest"], // Palimpsest, openPalimpsest, fork, hand-off, the queued hand-offs
  ["import"], // importing parsed transcripts
  ["mirror-fold", "replay"], // folding mirrored transcripts; replaying transcripts under each policy
];

const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)));

describe("packages/store/src folders", () => {
  it("are all placed in a layer", () => {
    const folders = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isDirectory());
    expect(folders.filter((folder) => !layerOf.has(folder))).toEqual([]);
    expect([...layerOf.keys()].filter((folder) => !folders.includes(folder))).toEqual([]);
  });

  it("import only folders of lower layers (so no cycle)", () => {
    const edges = [...folderEdges()].map((e) => e.split(" → ") as [string, string]);
    expect(edges.length).toBeGreaterThan(20); // the scan reads the imports
    const upwards = edges
      .filter(([from, to]) => (layerOf.get(to) ?? Number.POSITIVE_INFINITY) >= (layerOf.get(from) ?? -1))
      .map(([from, to]) => `${from} → ${to}`);
    expect(upwards).toEqual([]);
  });
});
