/**
 * White space as tiktoken's pre-tokenizers read `\s` (Rust's regex: Unicode's White_Space), written for a
 * character class: it holds U+0085 and not U+FEFF, where JavaScript's `\s` is the other way round. The
 * counters cut text with it, so a byte-order mark inside a text is cut as tiktoken cuts it.
 */
export const WHITE_SPACE = String.raw`\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;

/**
 * `source`, a pre-tokenizer's expression as gpt-tokenizer writes it, with `\s` and `\S` read as tiktoken
 * reads them (WHITE_SPACE): its expressions use `\s` alone and as `[^\s…]`, `\S` alone.
 */
export function withTiktokenWhiteSpace(source: string): string {
  return source
    .replaceAll(String.raw`[^\s`, `[^${WHITE_SPACE}`)
    .replaceAll(String.raw`\s`, `[${WHITE_SPACE}]`)
    .replaceAll(String.raw`\S`, `[^${WHITE_SPACE}]`);
}
