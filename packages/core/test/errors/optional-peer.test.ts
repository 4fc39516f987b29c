import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { loadOptionalPeer, ValidationError } from "@palimpsest/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * A folder with two installed packages: `broken-peer`, which throws while it loads, and `needy-peer`, which
 * imports a package that is not installed; and `load.mjs`, whose `load(name)` imports a package from there.
 */
async function peersFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "palimpsest-peer-"));
  const install = async (name: string, source: string) => {
    await mkdir(join(dir, "node_modules", name), { recursive: true });
    const manifest = { name, version: "1.0.0", type: "module", exports: "./index.js" };
    await writeFile(join(dir, "node_modules", name, "package.json"), JSON.stringify(manifest));
    await writeFile(join(dir, "node_modules", name, "index.js"), source);
  };
  await install("broken-peer", 'throw new Error("broken-peer failed at load");\n');
  await install("needy-peer", 'export { gone } from "palimpsest-gone-dependency";\n');
  await writeFile(join(dir, "load.mjs"), "export const load = (name) => import(name);\n");
  return dir;
}

describe("loadOptionalPeer", () => {
  let dir = "";
  let load: (name: string) => Promise<unknown> = async () => undefined;
  beforeAll(async () => {
    dir = await peersFolder();
    ({ load } = (await import(pathToFileURL(join(dir, "load.mjs")).href)) as { load: typeof load });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** The error loadOptionalPeer rejects with for the package `name` of the peers folder. */
  async function failureOf(name: string): Promise<Error> {
    const error = await loadOptionalPeer("someFunction", name, () => load(name)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }

  it("returns what the import resolves to when the package is installed", async () => {
    const zod = await loadOptionalPeer("someFunction", "zod", () => import("zod"));
    expect(typeof zod.z.object).toBe("function");
  });

  it("names the install command in a VALIDATION error when the package is not installed", async () => {
    const loading = loadOptionalPeer("someFunction", "palimpsest-no-such-peer", () => load("palimpsest-no-such-peer"));
    await expect(loading).rejects.toBeInstanceOf(ValidationError);
    await expect(loading).rejects.toMatchObject({
      code: "VALIDATION",
      message: "someFunction needs palimpsest-no-such-peer: npm install palimpsest-no-such-peer",
      details: {
        path: "palimpsest-no-such-peer",
        issues: [{ path: "", code: "custom", message: "palimpsest-no-such-peer: not installed" }],
      },
      cause: { code: "ERR_MODULE_NOT_FOUND" },
    });
  });

  it("rethrows the error of an installed package that fails to load, not the install hint", async () => {
    const error = await failureOf("broken-peer");
    expect(error).not.toBeInstanceOf(ValidationError);
    expect(error.message).toBe("someFunction could not load broken-peer: broken-peer failed at load");
    expect(error.cause).toMatchObject({ message: "broken-peer failed at load" });
  });

  it("rethrows a missing dependency of an installed package as that, not as the package not installed", async () => {
    const error = await failureOf("needy-peer");
    expect(error).not.toBeInstanceOf(ValidationError);
    expect(error.message).toMatch(
      /^someFunction could not load needy-peer: Cannot find package 'palimpsest-gone-dependency'/,
    );
    expect(error.cause).toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
  });
});
