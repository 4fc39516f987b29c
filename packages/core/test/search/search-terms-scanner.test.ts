import { messageSearchText, SEARCH_TERM_LENGTH, SEARCH_TERMS_LIMIT, searchTerms } from "@palimpsest/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HAVE_TRANSCRIPTS, realSessions, realTranscriptFiles } from "../../../../test/support/real-transcripts.ts";

/**
 * searchTerms as it was written with regular expressions, before the scanner. The stores index the terms
 * it made, so the scanner must make the very same ones: this is the reference it is compared with.
 */
function regexSearchTerms(text: string, limit = SEARCH_TERMS_LIMIT): string[] {
  const COMPOUND = /(?:(?<![\p{L}\p{N}._-])\.)?[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*/gu;
  const CONNECTOR = /[._-]/;
  const NUMBER_WITH_UNIT = /^(\p{N}+(?:[._-]\p{N}+)*)(\p{L}+)$/u;
  const terms = new Set<string>();
  const add = (term: string): boolean => {
    if (term.length <= SEARCH_TERM_LENGTH) terms.add(term);
    if (terms.size >= limit) return true;
    const measured = NUMBER_WITH_UNIT.exec(term);
    return measured !== null && (add(measured[1] as string) || add(measured[2] as string));
  };
  for (const [compound] of text.toLowerCase().matchAll(COMPOUND)) {
    if (!CONNECTOR.test(compound)) {
      if (add(compound)) break;
      continue;
    }
    if (add(compound) || compound.split(CONNECTOR).some((word) => word.length > 0 && add(word))) break;
  }
  return [...terms];
}

/**
 * Pieces of text where a scanner could go wrong: connectors, doubled and leading ones, dotfiles, letters and
 * numbers of other scripts, marks (neither), astral letters, digits and symbols, lone surrogates (a lead and a
 * trail put side by side make a pair), characters whose lower case is longer (`İ`) or ASCII (the Kelvin sign),
 * numbers with units, and runs around SEARCH_TERM_LENGTH.
 */
const PIECES = [
  "a",
  "Z",
  "q",
  "0",
  "7",
  "16ms",
  "0.7Seconds",
  "3x",
  "v2",
  ".",
  "_",
  "-",
  "..",
  " ",
  "\n",
  "/",
  '"',
  "é",
  "ß",
  "東京",
  "Жж",
  "ΑΣ",
  "\u0301",
  "²",
  "Ⅷ",
  "٣",
  "𝐀",
  "𝟎",
  "𐐀",
  "👍",
  "\uD800",
  "\uDC00",
  "\uDBFF",
  "İ",
  "ẞ",
  "ǅ",
  "\u212A",
  ".env",
  ".beads/",
  "~/.claude",
  "a".repeat(64),
  "b".repeat(70),
  `${"1".repeat(62)}ms`,
  `${"9".repeat(66)}kb`,
];

/** Edge cases checked on every run, before the generated ones. */
const EXAMPLES: [string, number | undefined][] = [
  ["", undefined],
  [".env x.env a..b .", undefined],
  ["İ.env 𝐀.env \uD800.env —.env 👍.env _.env", undefined],
  ["took 16ms then 0.7Seconds ٣ms ²x 1.2.3-rc", 0],
  ["a.b c d", 3],
  [`${"9".repeat(66)}kb 1_2-3.4x`, 2],
];

describe("searchTerms makes the very terms the regular expressions made", () => {
  it("on text of tricky pieces, at any limit", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((pieces) => pieces.join("")),
        fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
        (text, limit) => {
          expect(searchTerms(text, limit)).toEqual(regexSearchTerms(text, limit));
        },
      ),
      { numRuns: 3_000, examples: EXAMPLES },
    );
  });

  it("on text of any code units: ASCII, the BMP's (lone surrogates too) and astral code points", () => {
    const unit = fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
      fc.integer({ min: 0x10000, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), (text) => {
        expect(searchTerms(text)).toEqual(regexSearchTerms(text));
      }),
      { numRuns: 1_000 },
    );
  });
});

/** The texts of a real transcript file's messages: their text parts, tool call arguments and search text. */
function messageTexts(file: string): string[] {
  const texts: string[] = [];
  for (const session of realSessions(file))
    for (const item of session.items) {
      if (item.kind !== "message") continue;
      for (const part of item.message.content) if (part.type === "text") texts.push(part.text);
      for (const call of item.message.toolCalls ?? []) texts.push(call.arguments);
      texts.push(messageSearchText(item.message));
    }
  return texts;
}

describe.skipIf(!HAVE_TRANSCRIPTS)("searchTerms on the real transcripts makes the regular expressions' terms", () => {
  for (const file of realTranscriptFiles()) {
    it(`${file}: every message's texts, whole and at a small limit`, () => {
      const texts = messageTexts(file);
      expect(texts.length).toBeGreaterThan(0);
      for (const text of texts) {
        expect(searchTerms(text)).toEqual(regexSearchTerms(text));
        expect(searchTerms(text, 7)).toEqual(regexSearchTerms(text, 7));
      }
    });
  }
});
