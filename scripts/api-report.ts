/**
 * The public API report of every library package, made by API Extractor from the built declarations
 * (`tsc -b tsconfig.build.json` first): one `api/<package>[.<subpath>].api.md` per entry point, checked in,
 * so a change to what a package exports is a diff a reviewer sees. `checkApiReports()` compares the built
 * declarations with the checked-in reports (the suite's test/structure/api-report.test.ts);
 * `node --import tsx scripts/api-report.ts --update` rewrites them after an intended change.
 */
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Extractor, ExtractorConfig, ExtractorLogLevel, type ExtractorMessage } from "@microsoft/api-extractor";

const ROOT = resolve(import.meta.dirname, "..");
/** Where the reports are kept. */
export const REPORT_FOLDER = join(ROOT, "api");

/** An entry point reported: its package folder, its subpath ("" for the main one) and its declaration file. */
export interface EntryPoint {
  pkg: string;
  subpath: string;
  dts: string;
}

/**
 * Every entry point of the library packages, from their published `exports` (each with `types`): not the
 * umbrella `palimpsest`, whose entry points only re-export these, nor the CLI's bin.
 */
export function entryPoints(): EntryPoint[] {
  return readdirSync(join(ROOT, "packages"))
    .sort()
    .flatMap((pkg) => {
      const manifest = JSON.parse(readFileSync(join(ROOT, "packages", pkg, "package.json"), "utf8")) as {
        name: string;
        publishConfig?: { exports?: Record<string, { types?: string }> };
      };
      if (manifest.name === "palimpsest") return [];
      return Object.entries(manifest.publishConfig?.exports ?? {}).flatMap(([key, target]) =>
        target.types === undefined
          ? []
          : [{ pkg, subpath: key.replace(/^\.\/?/, ""), dts: target.types.replace(/^\.\/dist\//, "") }],
      );
    });
}

/**
 * How the declarations are read: as a user's nodenext program reads them, with every workspace package
 * resolved to its built declarations (the workspace's `exports` point at the sources, for the tests)
 * through node_modules, symlinks kept: so a type another package declares is that package's import in
 * the report, not a "forgotten export" of this one.
 */
const COMPILER_OPTIONS = {
  module: "nodenext",
  moduleResolution: "nodenext",
  target: "es2022",
  lib: ["es2023"],
  types: ["node"],
  skipLibCheck: true,
  preserveSymlinks: true,
  paths: Object.fromEntries(
    entryPoints().map(({ pkg, subpath, dts }) => [
      `@palimpsest/${pkg}${subpath === "" ? "" : `/${subpath}`}`,
      [join(ROOT, "node_modules", "@palimpsest", pkg, "dist", dts)],
    ]),
  ),
};

/** One entry point's outcome: its report file, whether it matches (or was written), and what API Extractor said. */
export interface ApiReportResult {
  report: string;
  ok: boolean;
  changed: boolean;
  messages: string[];
}

/** Runs API Extractor on each entry point; `update` writes the reports, otherwise they are compared. */
export function runApiReports(update: boolean): ApiReportResult[] {
  const temp = join(ROOT, "node_modules/.cache/api-report");
  mkdirSync(temp, { recursive: true });
  mkdirSync(REPORT_FOLDER, { recursive: true });
  return entryPoints().map(({ pkg, subpath, dts }) => {
    const folder = join(ROOT, "packages", pkg);
    const name = subpath === "" ? pkg : `${pkg}.${subpath}`;
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: folder,
        mainEntryPointFilePath: join(folder, "dist", dts),
        compiler: { overrideTsconfig: { compilerOptions: COMPILER_OPTIONS } },
        apiReport: { enabled: true, reportFileName: name, reportFolder: REPORT_FOLDER, reportTempFolder: temp },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
          extractorMessageReporting: {
            default: { logLevel: ExtractorLogLevel.Warning },
            "ae-missing-release-tag": { logLevel: ExtractorLogLevel.None },
            "ae-undocumented": { logLevel: ExtractorLogLevel.None }, // biome and the structure tests own doc comments
            "ae-forgotten-export": { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
          },
          tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        },
      },
      configObjectFullPath: undefined,
      packageJsonFullPath: join(folder, "package.json"),
    });
    const messages: string[] = [];
    const result = Extractor.invoke(config, {
      localBuild: update,
      messageCallback: (message: ExtractorMessage) => {
        if (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning) {
          messages.push(message.formatMessageWithLocation(ROOT));
        }
        message.handled = true;
      },
    });
    return {
      report: `api/${name}.api.md`,
      ok: result.succeeded,
      changed: result.apiReportChanged,
      messages,
    };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const update = process.argv.includes("--update");
  const results = runApiReports(update);
  for (const r of results) {
    const state = r.changed ? (update ? "written" : "DIFFERS") : "same";
    process.stdout.write(`${r.report}: ${state}${r.messages.length > 0 ? `\n  ${r.messages.join("\n  ")}` : ""}\n`);
  }
  if (!update && results.some((r) => r.changed || !r.ok)) {
    process.stdout.write(
      "the public API changed: review it, then run node --import tsx scripts/api-report.ts --update\n",
    );
    process.exitCode = 1;
  }
}
