import { O200K_SPLIT_SOURCE, pieceEnd } from "../../packages/core/src/tokenizer/o200k-pieces.ts";
import { withTiktokenWhiteSpace } from "../../packages/core/src/tokenizer/white-space.ts";

/** `text` cut into pieces by core's o200k_base scanner; throws when a piece would be empty (the scanner stuck). */
export function piecesByScanner(text: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    if (end <= start) throw new Error(`the scanner made no piece at ${start} of ${JSON.stringify(text)}`);
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

/** gpt-tokenizer's expression with `\s` and `\S` as tiktoken reads them (withTiktokenWhiteSpace). */
const EXPRESSION = new RegExp(withTiktokenWhiteSpace(O200K_SPLIT_SOURCE), "gu");

/** `text` cut into pieces by the regular expression the scanner follows (gpt-tokenizer's, `\s` as tiktoken reads it, `gu` flags). */
export function piecesByExpression(text: string): string[] {
  return [...text.matchAll(EXPRESSION)].map((m) => m[0]);
}
