import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The repository root. */
export const ROOT = join(import.meta.dirname, "../..");

/** One fenced code block of a Markdown file: its language, its text, and where it starts (1-based line). */
export interface FencedBlock {
  file: string;
  line: number;
  lang: string;
  text: string;
}

/** The user documentation: README.md and every page under docs/, as paths relative to the root. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`);
  return ["README.md", ...docs.sort()];
}

/** The fenced blocks of a Markdown file (``` fences; the info string's first word is the language). */
export function fencedBlocks(file: string): FencedBlock[] {
  const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
  const blocks: FencedBlock[] = [];
  let open: { line: number; lang: string; body: string[] } | undefined;
  lines.forEach((text, index) => {
    const fence = /^\s*```(\S*)/.exec(text);
    if (open === undefined) {
      if (fence !== null) open = { line: index + 1, lang: fence[1] ?? "", body: [] };
    } else if (fence !== null && fence[1] === "") {
      blocks.push({ file, line: open.line, lang: open.lang, text: open.body.join("\n") });
      open = undefined;
    } else {
      open.body.push(text);
    }
  });
  return blocks;
}
