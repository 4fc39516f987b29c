/**
 * Byte-pair merges as gpt-tokenizer's bytePairMerge makes them (the leftmost adjacent pair of lowest rank
 * first, until no pair is a token), counting the parts left: of an ASCII piece on its characters, of any
 * other on its UTF-8 bytes, with rank lookups made without a TextDecoder. gpt-tokenizer decodes each candidate pair
 * with one and falls back to a binary search, about 3 µs a lookup: a run of 40 box-drawing characters took
 * half a millisecond to count there.
 */

const encoder = new TextEncoder();

/**
 * The ranks of the tokens whose bytes are not valid UTF-8 (halves of multi-byte characters), keyed by their
 * bytes as a Latin-1 string (one character per byte), from gpt-tokenizer's rank-to-bytes map.
 */
export function nonUtf8Ranks(byRank: ReadonlyMap<number, Uint8Array>): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const [rank, bytes] of byRank) ranks.set(latin1(bytes, 0, bytes.length), rank);
  return ranks;
}

/**
 * The number of tokens `piece` merges into. `textRanks` holds every token that is valid UTF-8, keyed by its
 * text; `byteRanks` the others (nonUtf8Ranks). As in gpt-tokenizer, a span of bytes that is valid UTF-8 is
 * looked up by its text only, any other by its bytes only.
 */
export function mergeBytes(
  piece: string,
  textRanks: ReadonlyMap<string, number>,
  byteRanks: ReadonlyMap<string, number>,
): number {
  const bytes = encoder.encode(piece);
  return mergedParts(bytes.length, (from, to) => {
    const text = utf8Text(bytes, from, to);
    return (text === undefined ? byteRanks.get(latin1(bytes, from, to)) : textRanks.get(text)) ?? Infinity;
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

/** `bytes[from, to)` as one character per byte. */
function latin1(bytes: Uint8Array, from: number, to: number): string {
  let text = "";
  for (let i = from; i < to; i++) text += String.fromCharCode(bytes[i] as number);
  return text;
}

/**
 * `bytes[from, to)` decoded, or undefined where it is not valid UTF-8 (what gpt-tokenizer's isValidUTF8
 * refuses: a stray continuation byte, a character cut short, an overlong form, a surrogate, past U+10FFFF).
 */
function utf8Text(bytes: Uint8Array, from: number, to: number): string | undefined {
  let text = "";
  for (let i = from; i < to; ) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      text += String.fromCharCode(lead);
      i += 1;
      continue;
    }
    const length =
      lead >= 0xc2 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > to) return undefined;
    let codePoint = lead & (0x7f >> length);
    for (let j = 1; j < length; j++) {
      const next = bytes[i + j] as number;
      if ((next & 0xc0) !== 0x80) return undefined;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    const least = length === 3 ? 0x800 : length === 4 ? 0x10000 : 0x80;
    if (codePoint < least || (codePoint >= 0xd800 && codePoint <= 0xdfff) || codePoint > 0x10ffff) return undefined;
    text += String.fromCodePoint(codePoint);
    i += length;
  }
  return text;
}
