/**
 * Bundles the CLI for its bin into dist/bin/ (esbuild, ESM, split at the dynamic imports): Node loads a
 * handful of files at start instead of the ~600 modules of the tsc output and its dependencies (kysely
 * alone is 257), see docs/packaging.md. better-sqlite3 stays outside (a native addon, a dependency of this
 * package); pg-native is pg's optional native binding, never installed. Run after `tsc -b`.
 */
import { rm } from "node:fs/promises";
import { build } from "esbuild";

const here = new URL("..", import.meta.url);
const outdir = new URL("dist/bin/", here).pathname;
await rm(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: here.pathname,
  entryPoints: { cli: "src/index.ts" },
  outdir,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3", "pg-native"],
  // CommonJS dependencies bundled into ESM call require() for Node's built-ins.
  banner: {
    js: 'import { createRequire as __palimpsestRequire } from "node:module"; const require = __palimpsestRequire(import.meta.url);',
  },
  legalComments: "linked",
  logLevel: "warning",
});
