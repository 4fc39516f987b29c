import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  piecesByExpression as byExpression,
  piecesByScanner as byScanner,
} from "../../../../test/support/o200k-pieces.ts";
import { O200K_SPLIT_SOURCE } from "../../src/tokenizer/o200k-pieces.ts";
import { textCorpus } from "./text-corpus.ts";

const module = await import("gpt-tokenizer/encoding/o200k_base");
/** gpt-tokenizer's own pre-tokenizer for o200k_base, as its encoder runs it. */
const expression = (module.default as unknown as { bytePairEncodingCoreProcessor: { tokenSplitRegex: RegExp } })
  .bytePairEncodingCoreProcessor.tokenSplitRegex;

/**
 * One or two of every class the expression tells apart: capitals (Lu, Lt), small letters (Ll), modifier and
 * other letters (Lm, Lo: in both word classes), marks, numbers of each kind, every kind of white space,
 * newlines, the contraction letters and apostrophe, slashes and other signs, astral letters, digits and
 * emoji, and lone surrogates.
 */
const ALPHABET = [
  ..."AZÉΣ",
  "ǅ",
  ..."azéσß",
  "ʰ",
  "ー",
  ..."東あא",
  "\u0301",
  "\u0903",
  ..."09²Ⅷ٣",
  "𝟎",
  ..." \t\u00a0\u3000\u2028\ufeff\v\f",
  ..."\r\n",
  ..."'sStTdDmMlLvVrReE",
  ..."/.{-_!→",
  "𝐀",
  "𠀀",
  "👍",
  "🏽",
  "\u200d",
  "\ud800",
  "\udc00",
];

const tricky = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 40 }).map((chars) => chars.join(""));
const anyCodePoints = fc.string({ unit: "binary", maxLength: 40 });

describe("o200k_base's pre-tokenizer as a scanner", () => {
  it("follows the expression gpt-tokenizer uses (another one is run as it is: gpt-tokenizer.ts)", () => {
    expect(expression.source).toBe(O200K_SPLIT_SOURCE);
  });

  it("cuts strings of every character class into the expression's pieces", () => {
    fc.assert(
      fc.property(fc.oneof(tricky, anyCodePoints), (text) => {
        expect(byScanner(text)).toEqual(byExpression(text));
      }),
      { numRuns: 3_000 },
    );
  });

  it("cuts known strings as the expression does", () => {
    const cases: Record<string, string[]> = {
      "Hello world": ["Hello", " world"],
      "it's  fine\n\n  x": ["it's", " ", " fine", "\n\n", " ", " x"],
      "DON'T ÉCOLE école": ["DON'T", " ÉCOLE", " école"],
      "1234567": ["123", "456", "7"],
      "  {\n/\nx": [" ", " {\n/\n", "x"],
      "a  ": ["a", "  "],
      "\u0301abc": ["\u0301abc"],
    };
    for (const [text, pieces] of Object.entries(cases)) {
      expect(byExpression(text)).toEqual(pieces);
      expect(byScanner(text)).toEqual(pieces);
    }
  });

  it("cuts code, logs, JSON and prose as the expression does", () => {
    for (const text of textCorpus(300)) expect(byScanner(text)).toEqual(byExpression(text));
  });
});
