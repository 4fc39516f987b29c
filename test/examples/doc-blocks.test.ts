import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { documentationFiles, fencedBlocks, ROOT } from "./markdown-files.ts";

const CODE_LANGS = new Set(["ts", "typescript", "js", "javascript", "mjs", "tsx"]);

/** Every examples/*.ts file with its text: the only source a documented code block may come from. */
const examples = readdirSync(join(ROOT, "examples"))
  .filter((name) => name.endsWith(".ts"))
  .map((name) => ({ name: `examples/${name}`, text: readFileSync(join(ROOT, "examples", name), "utf8") }));

/** The example whose lines contain the block's lines, contiguous and byte for byte. */
function sourceOf(block: string): string | undefined {
  return examples.find(({ text }) => `\n${text}\n`.includes(`\n${block}\n`))?.name;
}

describe("the documentation's code", () => {
  const blocks = documentationFiles().flatMap(fencedBlocks);

  it("has code blocks to check (README.md and docs/)", () => {
    expect(blocks.filter((b) => CODE_LANGS.has(b.lang)).length).toBeGreaterThan(5);
    expect(sourceOf("await openPalimpsest({ telemetery: {} });")).toBeUndefined();
    expect(sourceOf("await palimpsest.close();")).toBeDefined();
  });

  for (const block of blocks.filter((b) => CODE_LANGS.has(b.lang))) {
    it(`${block.file}:${block.line} is a region of an examples/ file (compiled by tsc, run by run-examples.test.ts)`, () => {
      expect(sourceOf(block.text), `copy this block from an examples/*.ts file:\n${block.text}`).toBeDefined();
    });
  }

  it("every block is fenced with a language, so none escapes these checks", () => {
    expect(blocks.filter((b) => b.lang === "").map((b) => `${b.file}:${b.line}`)).toEqual([]);
  });
});

describe("the documentation's links", () => {
  it("README.md links every page of docs/", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const pages = documentationFiles().filter((f) => f.startsWith("docs/"));
    expect(pages.filter((page) => !readme.includes(`](${page})`))).toEqual([]);
  });

  for (const file of documentationFiles()) {
    it(`${file} links only to files inside the repository that exist`, () => {
      const text = readFileSync(join(ROOT, file), "utf8");
      const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "");
      const local = targets.filter((t) => !/^[a-z]+:/.test(t) && !t.startsWith("#"));
      const broken = local.filter((t) => {
        const path = resolve(dirname(join(ROOT, file)), t.split("#")[0] ?? "");
        return relative(ROOT, path).startsWith("..") || !existsSync(path);
      });
      expect(broken).toEqual([]);
      expect(text).not.toMatch(/\.\.\/shared|DESIGN\.md/);
    });
  }
});
