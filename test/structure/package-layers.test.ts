/**
 * The packages and the folders inside the layered ones: the packages form a graph without cycles (each
 * depends only on those listed for it here, docs/architecture.md "Packages"), and the folders of
 * packages/store/src and packages/runtime/src are stacks of layers, each folder importing only folders of
 * lower layers of its package. A new package or folder must be placed here; an import upwards or sideways
 * fails.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { folderEdges } from "./folder-imports.ts";

const PACKAGES = join(import.meta.dirname, "../../packages");

/** Each workspace package and the workspace packages its sources may import (the graph has no cycle). */
const PACKAGE_DEPENDENCIES: Readonly<Record<string, readonly string[]>> = {
  core: [],
  projections: ["core"],
  store: ["core", "projections"], // the storage engine
  runtime: ["core", "projections", "store"], // the agent runtime
  eval: ["core", "runtime"], // the evaluation kit
  summarizers: ["core"],
  "claude-agent-sdk": ["core", "runtime", "store"],
  "openai-agents": ["core", "runtime"],
  "ai-sdk": ["core", "runtime"],
  cli: ["core", "projections", "store", "runtime", "eval", "summarizers"],
  palimpsest: [
    "core",
    "projections",
    "store",
    "runtime",
    "eval",
    "summarizers",
    "claude-agent-sdk",
    "openai-agents",
    "ai-sdk",
    "cli",
  ],
};

/** The one runtime file that may import the store: openPalimpsest, opening a store from a URL. */
const RUNTIME_COMPOSITION_ROOT = "palimpsest/open-palimpsest.ts";

/** Bottom to top, per package; the folders of one layer do not import each other. */
const LAYERS: Readonly<Record<string, readonly (readonly string[])[]>> = {
  store: [
    ["encryption"], // the keyring and the cipher content is sealed with
    ["engine"], // the log: one store over a dialect per engine
    ["audit", "candidate-store", "handoff", "mirror"], // features: their tables, migrations and erase statements
    ["open", "memory", "contract"], // the SQL stores' composition root; the memory store; the contract suite
  ],
  runtime: [
    ["runtime"], // Session: decide, append, fold; rewrite
    ["compaction"], // the executor, compact, micro, range, the policy registry
    ["precompact"], // background candidates: scheduler, job, the hit
    ["telemetry"], // recording compaction passes
    ["palimpsest"], // Palimpsest, openPalimpsest, fork, hand-off, the queued hand-offs
    ["import"], // importing parsed transcripts
    ["mirror-fold"], // folding mirrored transcripts
  ],
};

/** Every .ts file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** The workspace packages (by folder name) that the sources of package `name` import. */
function importedPackages(name: string): Set<string> {
  const found = new Set<string>();
  for (const file of sources(join(PACKAGES, name, "src"))) {
    for (const [, target] of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"@palimpsest\/([^"/]+)/g)) {
      found.add(target === "palimpsest" ? "palimpsest" : (target ?? ""));
    }
  }
  return found;
}

describe("packages", () => {
  it("are all placed in the graph", () => {
    const folders = readdirSync(PACKAGES).filter((name) =>
      statSync(join(PACKAGES, name, "src"), { throwIfNoEntry: false }),
    );
    expect(folders.sort()).toEqual(Object.keys(PACKAGE_DEPENDENCIES).sort());
  });

  it("import only the packages listed for them, and declare each in package.json", () => {
    const offending: string[] = [];
    for (const [name, allowed] of Object.entries(PACKAGE_DEPENDENCIES)) {
      const manifest = JSON.parse(readFileSync(join(PACKAGES, name, "package.json"), "utf8")) as {
        dependencies?: Record<string, string>;
      };
      for (const used of importedPackages(name)) {
        if (used === name) continue;
        if (!allowed.includes(used)) offending.push(`${name} → ${used} (not in its list)`);
        const declared = used === "palimpsest" ? "palimpsest" : `@palimpsest/${used}`;
        if (manifest.dependencies?.[declared] === undefined) offending.push(`${name} → ${used} (not a dependency)`);
      }
    }
    expect(importedPackages("runtime").has("store")).toBe(true); // the scan reads the imports
    expect(offending).toEqual([]);
  });

  it("leave the runtime talking to storage through core's ports: it imports the store in its composition root only", () => {
    const src = join(PACKAGES, "runtime", "src");
    const importers = sources(src)
      .filter((file) => /(?:from|import)\s*\(?\s*"@palimpsest\/store/.test(readFileSync(file, "utf8")))
      .map((file) => file.slice(src.length + 1));
    expect(importers).toEqual([RUNTIME_COMPOSITION_ROOT]);
  });
});

for (const [name, layers] of Object.entries(LAYERS)) {
  const src = join(PACKAGES, name, "src");
  const layerOf = new Map(layers.flatMap((folders, layer) => folders.map((folder) => [folder, layer] as const)));

  describe(`packages/${name}/src folders`, () => {
    it("are all placed in a layer", () => {
      const folders = readdirSync(src).filter((entry) => statSync(join(src, entry)).isDirectory());
      expect(folders.filter((folder) => !layerOf.has(folder))).toEqual([]);
      expect([...layerOf.keys()].filter((folder) => !folders.includes(folder))).toEqual([]);
    });

    it("import only folders of lower layers (so no cycle)", () => {
      const edges = [...folderEdges(src)].map((e) => e.split(" → ") as [string, string]);
      expect(edges.length).toBeGreaterThan(5); // the scan reads the imports
      const upwards = edges
        .filter(([from, to]) => (layerOf.get(to) ?? Number.POSITIVE_INFINITY) >= (layerOf.get(from) ?? -1))
        .map(([from, to]) => `${from} → ${to}`);
      expect(upwards).toEqual([]);
    });
  });
}
