import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Every .ts file under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/**
 * "from → to" for each import of one top-level folder of `src` from another (relative imports only;
 * files at the top, such as the package's index.ts, are not folders and are left out).
 */
export function folderEdges(src: string): Set<string> {
  const edges = new Set<string>();
  for (const file of sources(src)) {
    const from = relative(src, file).split(sep)[0] ?? "";
    if (from.endsWith(".ts")) continue;
    for (const [, target] of readFileSync(file, "utf8").matchAll(/from "(\.{1,2}\/[^"]+)"/g)) {
      const to = relative(src, join(file, "..", target ?? "")).split(sep)[0] ?? "";
      if (to !== from && !to.endsWith(".ts")) edges.add(`${from} → ${to}`);
    }
  }
  return edges;
}
