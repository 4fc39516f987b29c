import { setImmediate as nextTurn } from "node:timers/promises";
import type { Encoding } from "../events/event-data.ts";
import type { Message } from "../messages/message.ts";
import type { TokenCounter } from "../ports/token-counter.ts";
import { countByPieces, countByPiecesInSlices, expressionPieceEnd, type PieceCounter } from "./long-run-count.ts";
import { countMessageTokens, countMessageTokensAsync } from "./message-cost.ts";
import { O200K_SPLIT_SOURCE, pieceEnd as o200kPieceEnd } from "./o200k-pieces.ts";
import { nonUtf8Ranks } from "./pair-merge.ts";
import { withTiktokenWhiteSpace } from "./white-space.ts";

type CountTokens = (text: string, options: { disallowedSpecial: Set<string> }) => number;

/** The parts of a gpt-tokenizer encoding module the counter uses. */
interface EncodingModule {
  countTokens: CountTokens;
  setMergeCacheSize: (size: number) => void;
  default: unknown;
}

/**
 * gpt-tokenizer's merge cache is a 100,000-entry LRU; on text of unique pieces (base64) its evictions
 * made counting superlinear (3 MB of base64: 12.7 s of CPU against 3.3 s without it). 1,000 entries keep
 * the speed-up on ordinary text (repeated words) and stay linear.
 */
const MERGE_CACHE_SIZE = 1_000;

// An empty disallowed set makes "<|endoftext|>" and friends in user text ordinary text, never an error.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Texts from this length on are counted in slices of this many characters by countMessageAsync, the event
 * loop free between slices (a slice of base64, the slowest text per character, is about 30 ms of CPU here).
 */
export const COUNT_SLICE_CHARS = 32 * 1024;

const cache = new Map<Encoding, Promise<TokenCounter>>();

/** Counted once when an encoding loads: words, numbers, punctuation, whitespace and a long run. */
const WARM_UP_TEXT = `Read src/app.ts: 42 lines, 3.5 KB.\n  ${"x".repeat(300)} 'quoted' — ünïcode 東京`;

// Each encoding's ranks are a few MB of JS: import only the one asked for, and only when asked.
async function loadEncoding(encoding: Encoding): Promise<EncodingModule> {
  switch (encoding) {
    case "o200k_base":
      return await import("gpt-tokenizer/encoding/o200k_base");
    case "cl100k_base":
      return await import("gpt-tokenizer/encoding/cl100k_base");
  }
}

/**
 * The long-run path's view of an encoding: its pre-tokenizer and string ranks, read from gpt-tokenizer
 * 4.0's (TypeScript-private) core. Undefined when that shape is absent: every text is then counted exactly.
 */
function pieceCounter(module: EncodingModule, count: (text: string) => number): PieceCounter | undefined {
  const core = (module.default as { bytePairEncodingCoreProcessor?: Record<string, unknown> })
    .bytePairEncodingCoreProcessor;
  const split = core?.tokenSplitRegex;
  const ranks = core?.bytePairStringRankEncoder;
  const byBytes = core?.bytePairNonUtfRankDecoder;
  if (!(split instanceof RegExp)) return undefined;
  return {
    // o200k_base's expression as a scanner (the same pieces, a third of the time); any other one as it is, its
    // white space read as tiktoken reads it (withTiktokenWhiteSpace), as the scanner does.
    pieceEnd:
      split.source === O200K_SPLIT_SOURCE
        ? o200kPieceEnd
        : expressionPieceEnd(new RegExp(withTiktokenWhiteSpace(split.source), "u")),
    ranks: ranks instanceof Map ? (ranks as Map<string, number>) : undefined,
    byteRanks: byBytes instanceof Map ? nonUtf8Ranks(byBytes as Map<number, Uint8Array>) : undefined,
    count,
  };
}

async function build(encoding: Encoding): Promise<TokenCounter> {
  const module = await loadEncoding(encoding);
  module.setMergeCacheSize(MERGE_CACHE_SIZE);
  const exact = (text: string): number => module.countTokens(text, PLAIN_TEXT);
  const pieces = pieceCounter(module, exact);
  // Piece by piece: linear on over-long pieces (chunked), exact on every other text, and faster than
  // gpt-tokenizer on the whole text (pieces' counts are kept: every message of 8463c716, 157 -> 136 ms).
  const countText = (text: string): number => (pieces !== undefined ? countByPieces(text, pieces) : exact(text));
  // Split once on the whole text, so the sliced count is countByPieces' (exact without long runs, as `exact`).
  const countTextInSlices = async (text: string): Promise<number> =>
    pieces === undefined || text.length < COUNT_SLICE_CHARS
      ? countText(text)
      : countByPiecesInSlices(text, pieces, COUNT_SLICE_CHARS, () => nextTurn());
  // The first count compiles the pre-tokenizer's expressions (a few ms): done here, where the load is paid.
  countText(WARM_UP_TEXT);
  return {
    encoding,
    countText,
    countMessage: (message: Message) => countMessageTokens(message, countText),
    countMessageAsync: (message: Message) => countMessageTokensAsync(message, countTextInSlices),
  };
}

/** A gpt-tokenizer TokenCounter for `encoding`, loaded on first use and cached per encoding. */
export function createTokenCounter(encoding: Encoding): Promise<TokenCounter> {
  let counter = cache.get(encoding);
  if (counter === undefined) {
    counter = build(encoding);
    // A failed load is not cached, so a later call can retry.
    counter.catch(() => cache.delete(encoding));
    cache.set(encoding, counter);
  }
  return counter;
}
