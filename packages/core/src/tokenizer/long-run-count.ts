/**
 * Counting text with very long runs (base64, minified files, CJK without punctuation, runs of one
 * character) in bounded time. gpt-tokenizer's BPE merge is quadratic in the length of one pre-tokenizer
 * piece, so a piece longer than MAX_PIECE_CHARS is counted in chunks of that size; every other piece is
 * counted exactly. Chunking only removes merges across a chunk boundary, so it over-counts by at most a few
 * tokens per chunk (measured in BENCHMARKS.md, "Tokenizers and big texts"); the count of text without such pieces is exact.
 */

import { mergeBytes, mergedParts } from "./pair-merge.ts";

/** The piece length above which a piece is counted in chunks (chars; a boundary never splits a surrogate pair). */
export const MAX_PIECE_CHARS = 64;

/** Chunk length for a whitespace piece: the encodings hold tokens of long space runs, so these chunks stay long. */
const WHITESPACE_CHUNK_CHARS = 512;

const SEEN_CHUNKS = 1_000;

/** What the long-run path needs of an encoding: its pre-tokenizer, its ranks by string, and an exact count. */
export interface PieceCounter {
  /** The encoding's pre-tokenizer: where the piece that starts at `start` (< text.length) ends. */
  pieceEnd: (text: string, start: number) => number;
  /** Merge ranks of the tokens kept as text, keyed by it; undefined: count pieces exactly (`count`). */
  ranks: ReadonlyMap<string, number> | undefined;
  /** With `ranks`, those of the tokens kept as bytes (nonUtf8Ranks): pieces beyond ASCII are then merged here too; undefined: `count` counts them. */
  byteRanks: ReadonlyMap<string, number> | undefined;
  /** The exact count of a short text (one piece). */
  count: (text: string) => number;
}

/**
 * A pre-tokenizer's pieceEnd from its expression (a sticky copy of it is made: the expression's
 * alternatives match every character, so a piece starts where the one before it ended).
 */
export function expressionPieceEnd(split: RegExp): (text: string, start: number) => number {
  const sticky = new RegExp(split.source, "uy");
  return (text, start) => {
    sticky.lastIndex = start;
    return sticky.exec(text) === null ? text.length : sticky.lastIndex;
  };
}

/** Tokens of `text` piece by piece: exact for pieces up to MAX_PIECE_CHARS, chunked above (a slight over-count). */
export function countByPieces(text: string, counter: PieceCounter): number {
  const tally = pieceTally(counter);
  for (let start = 0; start < text.length; ) {
    const end = counter.pieceEnd(text, start);
    tally.add(text.slice(start, end));
    start = end;
  }
  return tally.tokens();
}

/**
 * countByPieces with the event loop free between slices: after every `sliceChars` characters of pieces it
 * awaits `pause()` (a setImmediate), so timers and I/O of the process run while a big text is counted.
 * The same count as countByPieces: a slice ends between pieces.
 */
export async function countByPiecesInSlices(
  text: string,
  counter: PieceCounter,
  sliceChars: number,
  pause: () => Promise<void>,
): Promise<number> {
  const tally = pieceTally(counter);
  let sinceBreak = 0;
  for (let start = 0; start < text.length; ) {
    const end = counter.pieceEnd(text, start);
    tally.add(text.slice(start, end));
    sinceBreak += end - start;
    start = end;
    if (sinceBreak < sliceChars) continue;
    sinceBreak = 0;
    await pause();
  }
  return tally.tokens();
}

/** A running count of pre-tokenizer pieces: short ones exactly, long ones in chunks counted once each. */
function pieceTally(counter: PieceCounter): { add: (piece: string) => void; tokens: () => number } {
  let tokens = 0;
  const known = knownPieces(counter);
  const seen = new Map<string, number>(); // chunks of one long run repeat (a run of one character): count each once
  const add = (piece: string): void => {
    if (piece.length <= MAX_PIECE_CHARS) {
      tokens += countPiece(piece, counter, known);
      return;
    }
    for (const chunk of chunks(piece, /^\s+$/.test(piece) ? WHITESPACE_CHUNK_CHARS : MAX_PIECE_CHARS)) {
      let count = seen.get(chunk);
      if (count === undefined) {
        count = countPiece(chunk, counter, known);
        if (seen.size < SEEN_CHUNKS) seen.set(chunk, count);
      }
      tokens += count;
    }
  };
  return { add, tokens: () => tokens };
}

/**
 * Pieces whose count is kept per encoding (words and identifiers repeat across the texts of a session),
 * cleared when full: fragments of up to MAX_PIECE_CHARS characters in memory, as gpt-tokenizer's own merge
 * cache keeps them, never written anywhere.
 */
const KNOWN_PIECES = 20_000;
const pieceCounts = new WeakMap<PieceCounter, Map<string, number>>();

/** The counts kept for `counter`'s pieces. */
function knownPieces(counter: PieceCounter): Map<string, number> {
  let known = pieceCounts.get(counter);
  if (known === undefined) {
    known = new Map();
    pieceCounts.set(counter, known);
  }
  return known;
}

function countPiece(piece: string, counter: PieceCounter, known: Map<string, number>): number {
  // One ASCII character is one byte, and every byte is a token of its own: nothing to look up.
  if (piece.length === 1 && piece.charCodeAt(0) < 0x80) return 1;
  const kept = known.get(piece);
  if (kept !== undefined) return kept;
  const count = mergedCount(piece, counter);
  if (known.size >= KNOWN_PIECES) known.clear();
  known.set(piece, count);
  return count;
}

/** The tokens of one piece: one when it is a token, else its byte-pair merge (ours where the ranks are at hand). */
function mergedCount(piece: string, counter: PieceCounter): number {
  const { ranks, byteRanks } = counter;
  if (ranks === undefined) return counter.count(piece);
  if (ranks.has(piece)) return 1;
  // An ASCII piece merges on its characters: each is one byte, so the text ranks are the byte ranks.
  if (isAscii(piece)) return mergedParts(piece.length, (from, to) => ranks.get(piece.slice(from, to)) ?? Infinity);
  return byteRanks === undefined ? counter.count(piece) : mergeBytes(piece, ranks, byteRanks);
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

function* chunks(piece: string, size: number): Generator<string> {
  for (let start = 0; start < piece.length; ) {
    let end = Math.min(piece.length, start + size);
    const last = piece.charCodeAt(end - 1);
    if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end -= 1; // keep a surrogate pair whole
    yield piece.slice(start, end);
    start = end;
  }
}
