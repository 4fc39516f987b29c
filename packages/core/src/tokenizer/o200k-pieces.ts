/**
 * o200k_base's pre-tokenizer written out as a scanner: the same pieces as its regular expression
 * (O200K_SPLIT_SOURCE, matched with the `gu` flags, its `\s` read as tiktoken reads it: WHITE_SPACE), at a
 * fraction of the cost (the expression was about four fifths of counting a real session's texts once their
 * pieces' counts were known). Each code point is classed once (Unicode letter categories, numbers, white
 * space) and the expression's alternatives are followed in order, with the backtracking they do worked out
 * by hand (see pieceEnd).
 */

import { WHITE_SPACE } from "./white-space.ts";

/** The expression this scanner follows, as gpt-tokenizer 4.0 writes it; the scanner is used only for it. */
export const O200K_SPLIT_SOURCE = String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`;

/** In [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (a word's capitals). */
const UPPER = 1;
/** In [\p{Ll}\p{Lm}\p{Lo}\p{M}] (a word's small letters). */
const LOWER = 2;
/** A letter or a number (\p{L}, \p{N}): never a word's leading sign or a run of punctuation. */
const ALNUM = 4;
/** \p{N}. */
const NUMBER = 8;
/** \s (WHITE_SPACE). */
const SPACE = 16;
/** \r or \n. */
const NEWLINE = 32;
/** The code point has been classed. */
const CLASSED = 64;

const IS_UPPER = /[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]/u;
const IS_LOWER = /[\p{Ll}\p{Lm}\p{Lo}\p{M}]/u;
const IS_ALNUM = /[\p{L}\p{N}]/u;
const IS_NUMBER = /\p{N}/u;
const IS_SPACE = new RegExp(`[${WHITE_SPACE}]`, "u");

/** Each code point's class bits, worked out on its first use (0: not yet). */
const classes = new Uint8Array(0x110000);

/** The class bits of code point `cp`, worked out with the expressions above on its first use and kept. */
function classOf(cp: number): number {
  const known = classes[cp] as number;
  if (known !== 0) return known;
  const char = String.fromCodePoint(cp);
  const bits =
    CLASSED |
    (IS_UPPER.test(char) ? UPPER : 0) |
    (IS_LOWER.test(char) ? LOWER : 0) |
    (IS_ALNUM.test(char) ? ALNUM : 0) |
    (IS_NUMBER.test(char) ? NUMBER : 0) |
    (IS_SPACE.test(char) ? SPACE : 0) |
    (cp === 0x0a || cp === 0x0d ? NEWLINE : 0);
  classes[cp] = bits;
  return bits;
}

/** The code point at `i` of `text` (a lone surrogate is one, as the `u` flag reads it). */
function codeAt(text: string, i: number): number {
  const unit = text.charCodeAt(i);
  return unit < 0xd800 || unit > 0xdbff ? unit : (text.codePointAt(i) as number);
}

const widthOf = (cp: number): number => (cp > 0xffff ? 2 : 1);

/** Where the run of code points whose class has any of `bits`, from `i`, ends. */
function runEnd(text: string, i: number, bits: number): number {
  while (i < text.length) {
    const cp = codeAt(text, i);
    if ((classOf(cp) & bits) === 0) break;
    i += widthOf(cp);
  }
  return i;
}

/** `[UPPER]*[LOWER]+` from `s` (greedy, backtracking into the capitals): its end, or -1. */
function capitalsThenSmall(text: string, s: number): number {
  let i = s;
  let lastLowerEnd = -1; // the end of the last capital that is a small letter too (Lm, Lo, M)
  while (i < text.length) {
    const cp = codeAt(text, i);
    const bits = classOf(cp);
    if ((bits & UPPER) === 0) break;
    i += widthOf(cp);
    if ((bits & LOWER) !== 0) lastLowerEnd = i;
  }
  if (i < text.length && (classOf(codeAt(text, i)) & LOWER) !== 0) return runEnd(text, i, LOWER);
  return lastLowerEnd;
}

/** `[UPPER]+[LOWER]*` from `s`: its end, or -1. */
function capitalsThenAnySmall(text: string, s: number): number {
  const capitals = runEnd(text, s, UPPER);
  return capitals === s ? -1 : runEnd(text, capitals, LOWER);
}

/** In either word class (a letter or a mark). */
const isLetter = (cp: number): boolean => (classOf(cp) & (UPPER | LOWER)) !== 0;

/** The expression's two word shapes, in its order. */
const WORDS = [capitalsThenSmall, capitalsThenAnySmall];

/** The end of an optional `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d` (either case) at `i`. */
function contractionEnd(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x27) return i;
  const a = text.charCodeAt(i + 1) | 0x20; // lower-cased ASCII letter (NaN | 0x20 at the end: 0x20)
  if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return i + 2; // s d m t
  const b = text.charCodeAt(i + 2) | 0x20;
  if ((a === 0x6c && b === 0x6c) || ((a === 0x76 || a === 0x72) && b === 0x65)) return i + 3; // ll ve re
  return i;
}

/**
 * The end of the piece the expression matches at `start` (start < text.length): its alternatives in order,
 * each with the backtracking the expression does.
 */
export function pieceEnd(text: string, start: number): number {
  const first = codeAt(text, start);
  const bits = classOf(first);
  // [^\r\n\p{L}\p{N}]? before a word: tried with the sign, then without, for each of the two word shapes.
  // Either shape needs a letter or mark where the word starts: checked first, so signs and spaces go on.
  const next = start + widthOf(first);
  const signed = (bits & (ALNUM | NEWLINE)) === 0 && next < text.length && isLetter(codeAt(text, next));
  if (signed || (bits & (UPPER | LOWER)) !== 0) {
    for (const word of WORDS) {
      const end = signed ? word(text, next) : -1;
      if (end >= 0) return contractionEnd(text, end);
      const bare = word(text, start);
      if (bare >= 0) return contractionEnd(text, bare);
    }
  }
  if ((bits & NUMBER) !== 0) {
    let i = start;
    for (let digits = 0; digits < 3 && i < text.length; digits++) {
      const cp = codeAt(text, i);
      if ((classOf(cp) & NUMBER) === 0) break;
      i += widthOf(cp);
    }
    return i;
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  const signStart = first === 0x20 ? start + 1 : start;
  if (signStart < text.length && (classOf(codeAt(text, signStart)) & (SPACE | ALNUM)) === 0) {
    let i = signStart;
    while (i < text.length) {
      const cp = codeAt(text, i);
      if ((classOf(cp) & (SPACE | ALNUM)) !== 0) break;
      i += widthOf(cp);
    }
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d && c !== 0x2f) break;
      i += 1;
    }
    return i;
  }
  // White space (every \s is one UTF-16 unit): `\s*[\r\n]+` ends after the run's last newline; `\s+(?!\S)`
  // leaves the run's last space to the piece after it, unless the text ends there; `\s+` takes a lone one.
  let i = start;
  let newlineEnd = -1;
  while (i < text.length) {
    const c = classOf(text.charCodeAt(i));
    if ((c & SPACE) === 0) break;
    i += 1;
    if ((c & NEWLINE) !== 0) newlineEnd = i;
  }
  if (newlineEnd >= 0) return newlineEnd;
  if (i === text.length || i - start === 1) return i;
  return i - 1;
}
