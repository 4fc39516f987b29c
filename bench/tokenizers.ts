/**
 * Token counter benchmark: core's counter (what an append counts with: its own pre-tokenizer and merges on
 * gpt-tokenizer's ranks), gpt-tokenizer's own count, tiktoken (WASM), js-tiktoken and chars/4, side by side
 * on the same o200k_base corpus; then the messages of that corpus that hold text beyond ASCII, counted in a
 * fresh process so every counter meets them cold. Run: `npx tsx bench/tokenizers.ts` (`--blobs`: big blobs
 * only).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
// Relative: the workspace root does not depend on @palimpsest/core, so the name does not resolve here.
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { piecesByExpression, piecesByScanner } from "../test/support/o200k-pieces.ts";
import { appendStall, formatBlobTable, runBlobBench } from "./blob-tokens.ts";

/** One candidate's figures on one corpus size. */
export interface BenchResult {
  candidate: string;
  /** Where the messages came from. */
  corpus: string;
  messages: number;
  /** Time to load the encoding, once per process (dynamic import plus construction). */
  initMs: number;
  /** The first pass over these messages: the count-once-on-append pattern, merge caches cold. */
  firstPassMs: number;
  /** Median over RUNS repeated passes over the same messages. */
  medianMs: number;
  ratioToFastest: number;
  totalTokens: number;
  /** Every per-message count equals tiktoken's. */
  identicalToTiktoken: boolean;
  /** (totalTokens - exact) / exact, in percent. */
  errorPercent: number;
}

interface Candidate {
  name: string;
  initMs: number;
  count: (text: string) => number;
  dispose: () => void;
}

/** gpt-tokenizer is a dependency of @palimpsest/core, not of the root: resolved from there. */
const requireFromCore = createRequire(new URL("../packages/core/package.json", import.meta.url));

const SIZES = [600, 1200] as const;
const RUNS = 7;
const TRANSCRIPTS = join(import.meta.dirname, "../../shared/transcripts/claude-code/spotter");

async function timed(name: string, load: () => Promise<Omit<Candidate, "name" | "initMs">>): Promise<Candidate> {
  const start = performance.now();
  const loaded = await load();
  return { name, initMs: performance.now() - start, ...loaded };
}

/** The exact counters: tiktoken first (the reference every count is checked against), core, gpt-tokenizer's own. */
async function loadExactCandidates(): Promise<Candidate[]> {
  return [
    await timed("tiktoken (WASM)", async () => {
      const enc = (await import("tiktoken")).get_encoding("o200k_base");
      return { count: (t) => enc.encode_ordinary(t).length, dispose: () => enc.free() };
    }),
    await timed("core", async () => {
      const counter = await createTokenCounter("o200k_base");
      return { count: counter.countText, dispose: () => {} };
    }),
    // As a user would count with gpt-tokenizer: a module instance of its own (its CommonJS build, not the one
    // core imports and sets a small merge cache on), with its default merge cache.
    await timed("gpt-tokenizer countTokens", async () => {
      const { countTokens } = requireFromCore("gpt-tokenizer/encoding/o200k_base") as {
        countTokens: (text: string, options: { disallowedSpecial: Set<string> }) => number;
      };
      const plain = { disallowedSpecial: new Set<string>() };
      return { count: (t) => countTokens(t, plain), dispose: () => {} };
    }),
  ];
}

async function loadCandidates(): Promise<Candidate[]> {
  return [
    ...(await loadExactCandidates()),
    await timed("js-tiktoken", async () => {
      const [{ Tiktoken }, ranks] = await Promise.all([
        import("js-tiktoken/lite"),
        import("js-tiktoken/ranks/o200k_base"),
      ]);
      const enc = new Tiktoken(ranks.default);
      return { count: (t) => enc.encode(t, [], []).length, dispose: () => {} };
    }),
    await timed("chars/4", async () => ({ count: (t) => Math.ceil(t.length / 4), dispose: () => {} })),
  ];
}

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) =>
      e.isDirectory() ? jsonlFiles(join(dir, e.name)) : e.name.endsWith(".jsonl") ? [join(dir, e.name)] : [],
    );
}

type Block = { type?: string; text?: string; input?: unknown; content?: unknown };

function blockText(block: Block): string | undefined {
  if (block.type === "text") return block.text;
  if (block.type === "tool_use") return JSON.stringify(block.input);
  if (block.type !== "tool_result") return undefined;
  if (typeof block.content === "string") return block.content;
  if (!Array.isArray(block.content)) return undefined;
  return (block.content as Block[]).map((part) => part.text ?? "").join("\n");
}

/** Text of every user/assistant content block (text, tool_use input as JSON, tool_result) in the transcripts. */
function transcriptCorpus(dir: string): string[] {
  const out: string[] = [];
  for (const file of jsonlFiles(dir)) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const entry = JSON.parse(line) as { type?: string; message?: { content?: string | Block[] } };
      if (entry.type !== "user" && entry.type !== "assistant") continue;
      const content = entry.message?.content;
      const texts = typeof content === "string" ? [content] : (content ?? []).map(blockText);
      for (const text of texts) if (text !== undefined && text.length > 0) out.push(text);
    }
  }
  return out;
}

/** Deterministic tool-heavy messages (requests, code listings, logs, JSON), for when the transcripts are absent. */
function generatedCorpus(count: number): string[] {
  const code = (i: number) =>
    Array.from(
      { length: 40 + (i % 160) },
      (_, l) => `${String(l + 1).padStart(5)}\u2192  const v${l} = compute(${l}, "k${i}");`,
    ).join("\n");
  const log = (i: number) =>
    Array.from(
      { length: 30 + (i % 90) },
      (_, l) =>
        `2025-01-0${1 + (l % 9)}T10:${String(l % 60).padStart(2, "0")}:00Z INFO worker-${l % 7} processed job ${i * 1000 + l} in ${(l * 37) % 997}ms`,
    ).join("\n");
  const json = (i: number) =>
    JSON.stringify(
      { id: i, items: Array.from({ length: 5 + (i % 40) }, (_, k) => ({ k, name: `item-${k}`, ok: k % 3 !== 0 })) },
      null,
      2,
    );
  const kinds = [
    (i: number) => `Please fix the failing test in src/module-${i}.ts; it times out after the last refactor.`,
    (i: number) => `I'll read the file first and then run the tests for module ${i}.`,
    (i: number) => JSON.stringify({ command: `pnpm vitest run test/module-${i}.test.ts`, timeout: 120000 }),
    code,
    (i: number) =>
      JSON.stringify({ file_path: `/repo/src/module-${i}.ts`, old_string: "return a;", new_string: "return a + b;" }),
    log,
    json,
  ];
  return Array.from({ length: count }, (_, i) => (kinds[i % kinds.length] as (i: number) => string)(i));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function timePass(candidate: Candidate, messages: readonly string[]): number {
  const start = performance.now();
  let total = 0;
  for (const m of messages) total += candidate.count(m);
  if (total < 0) throw new Error("unreachable: keeps the loop from being optimised away");
  return performance.now() - start;
}

function benchSize(candidates: Candidate[], messages: readonly string[], corpus: string): BenchResult[] {
  const firstPass = candidates.map((c) => timePass(c, messages));
  const runs = candidates.map(() => [] as number[]);
  for (let r = 0; r < RUNS; r++) {
    for (const [i, c] of candidates.entries()) runs[i]?.push(timePass(c, messages));
  }
  const counts = candidates.map((c) => messages.map((m) => c.count(m)));
  const exact = counts[0] ?? []; // tiktoken is loaded first: it is the reference
  const exactTotal = exact.reduce((a, b) => a + b, 0);
  const medians = runs.map(median);
  const fastest = Math.min(...medians);
  return candidates.map((c, i) => {
    const mine = counts[i] ?? [];
    const totalTokens = mine.reduce((a, b) => a + b, 0);
    return {
      candidate: c.name,
      corpus,
      messages: messages.length,
      initMs: c.initMs,
      firstPassMs: firstPass[i] ?? 0,
      medianMs: medians[i] ?? 0,
      ratioToFastest: (medians[i] ?? 0) / fastest,
      totalTokens,
      identicalToTiktoken: mine.every((n, k) => n === exact[k]),
      errorPercent: ((totalTokens - exactTotal) / exactTotal) * 100,
    };
  });
}

/** The pre-tokenizer's share of counting: core's o200k_base scanner against gpt-tokenizer's expression. */
export interface PreTokenizerResult {
  messages: number;
  chars: number;
  /** Median over RUNS passes, in ms. */
  scannerMs: number;
  expressionMs: number;
  /** Every message is cut into the same pieces by both. */
  samePieces: boolean;
}

/** Cuts the messages with core's scanner and with the expression it follows (gpt-tokenizer's, its \s read as tiktoken reads it), alternating. */
export function runPreTokenizerBench(messages: readonly string[]): PreTokenizerResult {
  const [byScanner, byExpression] = [piecesByScanner, piecesByExpression];
  const timeCut = (cut: (text: string) => string[]): number => {
    const start = performance.now();
    let pieces = 0;
    for (const m of messages) pieces += cut(m).length;
    if (pieces < 0) throw new Error("unreachable: keeps the loop from being optimised away");
    return performance.now() - start;
  };
  const scanner: number[] = [];
  const regex: number[] = [];
  for (let r = 0; r < RUNS + 1; r++) {
    const [a, b] = r % 2 === 0 ? [byScanner, byExpression] : [byExpression, byScanner];
    const first = timeCut(a);
    const second = timeCut(b);
    if (r === 0) continue; // the first pass compiles both
    (a === byScanner ? scanner : regex).push(first);
    (b === byScanner ? scanner : regex).push(second);
  }
  return {
    messages: messages.length,
    chars: messages.reduce((n, m) => n + m.length, 0),
    scannerMs: median(scanner),
    expressionMs: median(regex),
    samePieces: messages.every((m) => JSON.stringify(byScanner(m)) === JSON.stringify(byExpression(m))),
  };
}

/** The pre-tokenizer comparison as a markdown table. */
export function formatPreTokenizerTable(r: PreTokenizerResult): string {
  return [
    "| messages | characters | scanner (core) ms | expression (gpt-tokenizer's, \\s as tiktoken reads it) ms | expression / scanner | same pieces |",
    "|---|---|---|---|---|---|",
    `| ${r.messages} | ${r.chars.toLocaleString("en-US")} | ${r.scannerMs.toFixed(2)} | ${r.expressionMs.toFixed(2)} | ${(r.expressionMs / r.scannerMs).toFixed(2)}x | ${r.samePieces ? "yes" : "no"} |`,
  ].join("\n");
}

/** The corpus every candidate counts: SIZES' total of real content blocks (generated ones without them). */
export function tokenizerCorpus(): { source: string; messages: string[] } {
  const needed = SIZES.reduce((a, b) => a + b, 0);
  const real = existsSync(TRANSCRIPTS) ? transcriptCorpus(TRANSCRIPTS) : [];
  const source =
    real.length > 0 ? `${real.length} content blocks from ${TRANSCRIPTS}` : "generated tool-heavy messages";
  const pool = real.length > 0 ? real : generatedCorpus(needed);
  return { source, messages: Array.from({ length: needed }, (_, i) => pool[i % pool.length] as string) };
}

/** Runs every candidate on 600 and 1,200 messages (disjoint slices, so each first pass is cold). */
export async function runTokenizerBench(): Promise<BenchResult[]> {
  const { source, messages: corpus } = tokenizerCorpus();
  const candidates = await loadCandidates();
  try {
    return SIZES.flatMap((size, i) => {
      const offset = SIZES.slice(0, i).reduce((a, b) => a + b, 0);
      return benchSize(candidates, corpus.slice(offset, offset + size), source);
    });
  } finally {
    for (const c of candidates) c.dispose();
  }
}

/** The distinct messages of the corpus that hold a character beyond ASCII (box drawing, accents, arrows, CJK, emoji). */
export function beyondAsciiCorpus(): { source: string; messages: string[] } {
  const { source, messages } = tokenizerCorpus();
  const beyond = [...new Set(messages)].filter((m) => /[^\p{ASCII}]/u.test(m));
  return {
    source: `the ${beyond.length} distinct messages of ${source} that hold a character beyond ASCII`,
    messages: beyond,
  };
}

/**
 * The exact counters on the corpus's messages beyond ASCII, in a fresh process (this file with
 * `--beyond-ascii`), so none of them has counted any of it before: the first pass is what an append of new
 * text pays, where core merges such pieces on their bytes (pair-merge.ts) and gpt-tokenizer decodes each span.
 */
export function runBeyondAsciiBench(): BenchResult[] {
  const child = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--beyond-ascii"], {
    encoding: "utf8",
  });
  if (child.status !== 0) throw new Error(`the beyond-ASCII child failed: ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "[]") as BenchResult[];
}

/** The child of runBeyondAsciiBench: prints its rows as JSON. */
async function beyondAsciiChild(): Promise<void> {
  const { source, messages } = beyondAsciiCorpus();
  const candidates = await loadExactCandidates();
  try {
    console.log(JSON.stringify(benchSize(candidates, messages, source)));
  } finally {
    for (const c of candidates) c.dispose();
  }
}

/** The results as a markdown table. */
export function formatBenchTable(results: readonly BenchResult[]): string {
  const rows = results.map((r) =>
    [
      r.messages,
      r.candidate,
      r.initMs.toFixed(1),
      r.firstPassMs.toFixed(2),
      r.medianMs.toFixed(2),
      `${r.ratioToFastest.toFixed(2)}x`,
      r.totalTokens.toLocaleString("en-US"),
      r.identicalToTiktoken ? "yes" : "no",
      `${r.errorPercent >= 0 ? "+" : ""}${r.errorPercent.toFixed(2)}%`,
    ].join(" | "),
  );
  return [
    "| messages | candidate | init ms | first pass ms | median ms | vs fastest | tokens | = tiktoken | error vs exact |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows.map((row) => `| ${row} |`),
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href && process.argv.includes("--beyond-ascii")) {
  await beyondAsciiChild();
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (!process.argv.includes("--blobs")) {
    const results = await runTokenizerBench();
    console.log(`Corpus: ${results[0]?.corpus}; encoding o200k_base; median of ${RUNS} runs after one first pass.\n`);
    console.log(formatBenchTable(results));
    const beyond = runBeyondAsciiBench();
    console.log(`\nBeyond ASCII, in a fresh process: ${beyond[0]?.corpus}.\n\n${formatBenchTable(beyond)}`);
    console.log(
      `\nThe pre-tokenizer alone, same messages:\n\n${formatPreTokenizerTable(runPreTokenizerBench(tokenizerCorpus().messages))}`,
    );
  }
  console.log(`\nBig blobs (CPU ms, o200k_base):\n\n${formatBlobTable(await runBlobBench())}`);
  const { append, syncCount } = await appendStall();
  const line = (what: string, r: { stallMs: number; cpuMs: number }) =>
    `${what}: longest event-loop stall ${r.stallMs.toFixed(0)} ms (wall), ${r.cpuMs.toFixed(0)} ms CPU`;
  console.log(`\nA 3 MB base64 tool output (${(syncCount.stallMs / append.stallMs).toFixed(1)}x shorter stall now):`);
  console.log(line("  appended now (counted in slices)", append));
  console.log(line("  counted the old way (one synchronous call)", syncCount));
}
