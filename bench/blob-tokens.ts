/**
 * Counting big blobs (base64, minified JS): the shipped counter against gpt-tokenizer's plain
 * countTokens (the old path: its 100,000-entry merge cache, whole text at once), CPU milliseconds per size,
 * and the event-loop stall of appending a 3 MB base64 tool output. Run: `npx tsx bench/tokenizers.ts --blobs`.
 */
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { openPalimpsest } from "@palimpsest/runtime";

/** One blob kind and size: CPU ms of each path (old undefined where it was not run), tokens, and the ratio. */
export interface BlobResult {
  kind: "base64" | "minified JS";
  mb: number;
  newMs: number;
  oldMs: number | undefined;
  newTokens: number;
  oldTokens: number | undefined;
}

const MB = 1024 * 1024;
const SIZES = [1, 10, 50] as const;
// The old path grows faster than linearly (4 MB of base64: ~26 s of CPU), so it runs on the small sizes only.
const OLD_SIZES = new Set([1, 3]);

/** Random base64 (a typical encoded attachment) of `mb` megabytes. */
export function base64Blob(mb: number): string {
  return randomBytes(Math.ceil((mb * MB * 3) / 4))
    .toString("base64")
    .slice(0, mb * MB);
}

/** Minified-looking JavaScript (spaces only after keywords, no newlines) of `mb` megabytes. */
export function minifiedJs(mb: number): string {
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length < mb * MB; i++) {
    const name = (i * 2654435761).toString(36).slice(0, 2 + (i % 4));
    const part = `function ${name}(e,t){var n=t||{};return e.map(function(r,o){return n[r.id+o]=${i % 97}?r:null}),n}${name}.p=${i};`;
    out.push(part);
    length += part.length;
  }
  return out.join("").slice(0, mb * MB);
}

function cpuMs<T>(f: () => T): [T, number] {
  const start = process.cpuUsage();
  const result = f();
  const used = process.cpuUsage(start);
  return [result, (used.user + used.system) / 1000];
}

/** Counts each blob kind at 1, 10 and 50 MB with the shipped counter, and at 1 and 3 MB with the old path too. */
export async function runBlobBench(): Promise<BlobResult[]> {
  const counter = await createTokenCounter("o200k_base");
  // Its own (CommonJS) instance, so the old path keeps gpt-tokenizer's default merge cache.
  const oldPath = createRequire(new URL("../packages/core/package.json", import.meta.url))(
    "gpt-tokenizer/encoding/o200k_base",
  ) as { countTokens: (text: string, options: { disallowedSpecial: Set<string> }) => number };
  const plain = { disallowedSpecial: new Set<string>() };
  const results: BlobResult[] = [];
  for (const [kind, make] of [
    ["base64", base64Blob],
    ["minified JS", minifiedJs],
  ] as const) {
    for (const mb of [...new Set([...OLD_SIZES, ...SIZES])].sort((a, b) => a - b)) {
      const blob = make(mb);
      const [newTokens, newMs] = cpuMs(() => counter.countText(blob));
      let old: [number, number] | undefined;
      if (OLD_SIZES.has(mb)) old = cpuMs(() => oldPath.countTokens(blob, plain));
      results.push({ kind, mb, newMs, oldMs: old?.[1], newTokens, oldTokens: old?.[0] });
    }
  }
  return results;
}

/** The longest the event loop stalled (wall ms, a 10 ms monitor) while `work` ran, and the CPU ms it used. */
async function stallOf(work: () => Promise<unknown>): Promise<{ stallMs: number; cpuMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  await new Promise((resolve) => setTimeout(resolve, 50)); // the monitor's timer is running before the stall
  const cpu = process.cpuUsage();
  await work();
  const used = process.cpuUsage(cpu);
  await new Promise((resolve) => setTimeout(resolve, 20));
  delay.disable();
  return { stallMs: delay.max / 1e6, cpuMs: (used.user + used.system) / 1000 };
}

/** Event-loop stalls around a 3 MB base64 tool output: appending it now, and counting it the old way. */
export interface AppendStall {
  /** The append through the runtime (counted in slices, the loop free between them). */
  append: { stallMs: number; cpuMs: number };
  /** The old append's counting: the same message counted in one synchronous call. */
  syncCount: { stallMs: number; cpuMs: number };
}

/** Appends a 3 MB base64 tool output to a session, and counts the same message synchronously, side by side. */
export async function appendStall(): Promise<AppendStall> {
  const palimpsest = await openPalimpsest({ url: ":memory:" });
  try {
    const session = await palimpsest.startSession({ model: "gpt-4o" });
    await session.append({ role: "user", content: "warm up" });
    const blob = base64Blob(3);
    const counter = await session.tokenCounter();
    const syncCount = await stallOf(async () =>
      counter.countMessage({ id: "x", role: "tool", toolCallId: "c1", content: [{ type: "text", text: blob }] }),
    );
    const append = await stallOf(() =>
      session.append([
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "cat", arguments: "{}" }] },
        { role: "tool", toolCallId: "c1", content: blob },
      ]),
    );
    return { append, syncCount };
  } finally {
    await palimpsest.close();
  }
}

/** The blob results as a markdown table. */
export function formatBlobTable(results: readonly BlobResult[]): string {
  const rows = results.map((r) => {
    const ratio = r.oldMs === undefined ? "" : `${(r.oldMs / r.newMs).toFixed(1)}x`;
    const error = r.oldTokens === undefined ? "" : `${(((r.newTokens - r.oldTokens) / r.oldTokens) * 100).toFixed(3)}%`;
    return `| ${r.kind} | ${r.mb} | ${r.newMs.toFixed(0)} | ${r.oldMs?.toFixed(0) ?? "not run"} | ${ratio} | ${r.newTokens.toLocaleString("en-US")} | ${error} |`;
  });
  return [
    "| blob | MB | new CPU ms | old CPU ms | old/new | tokens | count vs old |",
    "|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
