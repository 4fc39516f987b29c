/**
 * The folders of packages/store/src and the imports between them: a stack of layers (docs/architecture.md,
 * "The store's folders"), each folder importing only folders of lower layers, so no cycle can form. A new
 * folder must be placed in a layer here; an import upwards or sideways fails.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { folderEdges } from "./folder-imports.ts";

const SRC = join(import.meta.dirname, "../../packages/store/src");

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
    const edges = [...folderEdges(SRC)].map((e) => e.split(" → ") as [string, string]);
    expect(edges.length).toBeGreaterThan(20); // the scan reads the imports
    const upwards = edges
      .filter(([from, to]) => (layerOf.get(to) ?? Number.POSITIVE_INFINITY) >= (layerOf.get(from) ?? -1))
      .map(([from, to]) => `${from} → ${to}`);
    expect(upwards).toEqual([]);
  });
});
