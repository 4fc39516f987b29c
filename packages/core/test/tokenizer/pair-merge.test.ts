import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { get_encoding } from "tiktoken";
import { afterAll, describe, expect, it } from "vitest";

/** Pieces beyond ASCII that are no token of their own, of the kinds agents' outputs hold. */
function nonAsciiTexts(): string[] {
  const texts: string[] = [];
  for (let n = 1; n <= 60; n++) {
    texts.push(` ${"─".repeat(n)}\\`, `${"═".repeat(n)}`, ` ${"│ ".repeat(n)}`, `${"ä".repeat(n)}b`);
  }
  for (let n = 1; n <= 40; n++) texts.push("漢字かなカナ한글".repeat(n).slice(0, n), "🙂👍🏽👨‍👩‍👧".repeat(n));
  texts.push(
    "  ⎿  Done",
    "└── src/",
    "naïve café résumé",
    "Ωmega—dash…",
    "e\u0301\u0301\u0301",
    "\u{10ffff}\u{1f600}x",
  );
  // Lone surrogates are encoded as U+FFFD; the tokens that start with a byte-order mark are kept as bytes.
  texts.push("\ud800", "a\ud800b", "é\udfff", " \ud83d", "\ufffd\ufffd", "\ufeff", "\ufeffusing", "─\ufeff");
  // White space as tiktoken reads it: U+0085 is, U+FEFF is not (JavaScript's \s has it the other way round).
  texts.push("a  \ufeff\ufeff  b", "\ufeff/*\n", "x\u0085 y", "end \u0085\u0085", " \ufeff\n\n");
  return texts;
}

describe.each(["o200k_base", "cl100k_base"] as const)("text beyond ASCII with %s", (encoding) => {
  const tiktoken = get_encoding(encoding);
  afterAll(() => tiktoken.free());

  it("is counted on its bytes as tiktoken counts it", async () => {
    const counter = await createTokenCounter(encoding);
    const texts = nonAsciiTexts();
    expect(texts.map((text) => counter.countText(text))).toEqual(
      texts.map((text) => tiktoken.encode_ordinary(text).length),
    );
  });
});
