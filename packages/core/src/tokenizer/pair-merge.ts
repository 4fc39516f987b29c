/**
 * Byte-pair merges as gpt-tokenizer's bytePairMerge makes them (the leftmost adjacent pair of lowest rank
 * first, until no pair is a token), counting the parts left: of an ASCII piece on its characters, of any
 * other on its UTF-8 bytes. gpt-tokenizer looks a span of bytes up by decoding it with a TextDecoder when
 * it is valid UTF-8, by a binary search when not, about 3 µs a lookup: a run of 40 box-drawing characters
 * took half a millisecond to count there. Here a span is looked up by a slice of the piece or of its bytes.
 */

const encoder = new TextEncoder();

/** A lone surrogate: TextEncoder encodes it as U+FFFD, so its bytes are that character's. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The byte-order mark: a TextDecoder drops it, so gpt-tokenizer keeps the tokens that start with it as bytes. */
const BOM = 0xfeff;

/**
 * The ranks of the tokens gpt-tokenizer keeps as bytes (its rank-to-bytes map), keyed by their bytes as a
 * Latin-1 string (one character per byte): halves of multi-byte characters, and the few tokens that start
 * with a byte-order mark.
 */
export function nonUtf8Ranks(byRank: ReadonlyMap<number, Uint8Array>): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const [rank, bytes] of byRank) ranks.set(String.fromCharCode(...bytes), rank);
  return ranks;
}

/**
 * The number of tokens `piece` merges into on its UTF-8 bytes. `textRanks` holds the tokens gpt-tokenizer
 * keeps as text, keyed by it; `byteRanks` those it keeps as bytes (nonUtf8Ranks). A span that is whole
 * characters is looked up by its text (and by its bytes too when it starts with a byte-order mark, which
 * tiktoken finds and gpt-tokenizer does not), any other by its bytes.
 */
export function mergeBytes(
  piece: string,
  textRanks: ReadonlyMap<string, number>,
  byteRanks: ReadonlyMap<string, number>,
): number {
  const text = piece.replace(LONE_SURROGATE, "\ufffd");
  const bytes = encoder.encode(text);
  let raw = "";
  for (const byte of bytes) raw += String.fromCharCode(byte);
  // unitAt[b]: where in `text` the character that starts at byte b starts; -1 inside a character.
  const unitAt = new Int32Array(bytes.length + 1).fill(-1);
  for (let unit = 0, byte = 0; ; ) {
    unitAt[byte] = unit;
    if (unit >= text.length) break;
    const codePoint = text.codePointAt(unit) as number;
    byte += codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
    unit += codePoint > 0xffff ? 2 : 1;
  }
  return mergedParts(bytes.length, (from, to) => {
    const start = unitAt[from] as number;
    const end = unitAt[to] as number;
    if (start < 0 || end < 0) return byteRanks.get(raw.slice(from, to)) ?? Infinity;
    const rank = textRanks.get(text.slice(start, end));
    return rank ?? (text.charCodeAt(start) === BOM ? byteRanks.get(raw.slice(from, to)) : undefined) ?? Infinity;
  });
}

/**
 * Byte-pair merge of a sequence of `length` units (an ASCII piece's characters, another piece's bytes):
 * repeatedly merges the leftmost adjacent pair of parts of lowest rank (`rankOf` the units they span,
 * Infinity for no token), keeping each pair's rank so a merge re-ranks only its two neighbours, until no
 * pair is a token; returns the number of parts left.
 */
export function mergedParts(length: number, rankOf: (from: number, to: number) => number): number {
  // starts[i] is where part i begins (the last entry is the end); pairRanks[i] the rank of parts i and i + 1 merged.
  const starts = Array.from({ length: length + 1 }, (_, i) => i);
  const pairRank = (i: number): number =>
    i < 0 || i + 2 >= starts.length ? Infinity : rankOf(starts[i] as number, starts[i + 2] as number);
  const pairRanks = Array.from({ length: Math.max(0, length - 1) }, (_, i) => pairRank(i));
  for (;;) {
    let at = -1;
    let best = Infinity;
    for (let i = 0; i < pairRanks.length; i++) {
      const rank = pairRanks[i] as number;
      if (rank < best) {
        best = rank;
        at = i;
      }
    }
    if (at < 0) return starts.length - 1;
    starts.splice(at + 1, 1);
    pairRanks.splice(at, 1);
    if (at < pairRanks.length) pairRanks[at] = pairRank(at);
    if (at > 0) pairRanks[at - 1] = pairRank(at - 1);
  }
}
