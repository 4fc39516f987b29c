/**
 * Bundles the CLI for its bin into dist/bin/ (esbuild, ESM, split at the dynamic imports): Node loads a
 * handful of files at start instead of the ~600 modules of the tsc output and its dependencies (kysely
 * alone is 257), see docs/packaging.md. better-sqlite3 stays outside (a native addon, a dependency of this
 * package), and so do the provider SDKs (optional peers, imported from the user's node_modules only by an LLM
 * summarizer); pg-native is pg's optional native binding, never installed. Needs no `tsc -b`: it bundles the
 * TypeScript sources.
 */
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { build } from "esbuild";

const here = new URL("..", import.meta.url);
const outdir = new URL("dist/bin/", here).pathname;
const result = await build({
  absWorkingDir: here.pathname,
  entryPoints: { cli: "src/index.ts" },
  outdir,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3", "pg-native", "openai", "@anthropic-ai/sdk"],
  // CommonJS dependencies bundled into ESM call require() for Node's built-ins.
  banner: {
    js: 'import { createRequire as __palimpsestRequire } from "node:module"; const require = __palimpsestRequire(import.meta.url);',
  },
  legalComments: "linked",
  logLevel: "warning",
  write: false,
});
// Each file is written beside its place and renamed over it, so a bin already running (a test spawns it while
// `pnpm pack` rebuilds) never reads half a file; chunks are named by content, so a rebuild of the same
// sources writes the same names. Files of an older build are removed last.
await mkdir(outdir, { recursive: true });
const written = new Set();
for (const file of result.outputFiles) {
  const temporary = `${file.path}.${process.pid}.tmp`;
  await writeFile(temporary, file.contents);
  await rename(temporary, file.path);
  written.add(basename(file.path));
}
for (const name of await readdir(outdir)) {
  if (!written.has(name)) await rm(join(outdir, name), { force: true });
}
