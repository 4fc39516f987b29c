import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { get_encoding, type Tiktoken } from "tiktoken";
import { afterAll, describe, expect, it } from "vitest";
import { COUNT_SLICE_CHARS } from "../../src/tokenizer/gpt-tokenizer.ts";
import { MAX_PIECE_CHARS } from "../../src/tokenizer/long-run-count.ts";
import { BASE64, fromAlphabet } from "./seeded-blobs.ts";
import { textCorpus } from "./text-corpus.ts";

const minified = (n: number) =>
  Array.from({ length: n }, (_, i) => `function f${i}(e,t){return e.map(function(r){return r+t*${i}})}`).join(";");

// Blobs with no pre-tokenizer piece over MAX_PIECE_CHARS: the piece-by-piece path must be exact.
const SHORT_PIECES: Record<string, string> = {
  base64: fromAlphabet(BASE64, 200_000, 1),
  hex: fromAlphabet("0123456789abcdef", 100_000, 2),
  "minified JS": minified(3_000),
  "base64 with special-token text": `${fromAlphabet(BASE64, 5_000, 3)}<|endoftext|>${fromAlphabet(BASE64, 5_000, 4)}`,
};

// Blobs made of pieces longer than MAX_PIECE_CHARS, counted in chunks: an over-count within the bound.
const LONG_PIECES: Record<string, string> = {
  "one letter repeated": "a".repeat(6_000),
  "random lowercase": fromAlphabet("abcdefghijklmnopqrstuvwxyz", 6_000, 5),
  "CJK without punctuation": fromAlphabet("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年", 3_000, 6),
  "emoji run": fromAlphabet("🙂👍🏽🚀🇫🇷", 2_000, 7),
  punctuation: fromAlphabet("!#$%&*+-=<>?@^~", 6_000, 8),
  spaces: " ".repeat(6_000),
};

/** The documented bound: at most 1% over the exact count, and never under it by more than one token per chunk. */
const OVER_BOUND = 0.01;

describe.each(["o200k_base", "cl100k_base"] as const)("counting long runs with %s", (encoding) => {
  const tiktoken: Tiktoken = get_encoding(encoding);
  afterAll(() => tiktoken.free());

  it.each(Object.entries(SHORT_PIECES))("%s: exactly tiktoken's count", async (_, text) => {
    const counter = await createTokenCounter(encoding);
    expect(counter.countText(text)).toBe(tiktoken.encode_ordinary(text).length);
  });

  it.each(Object.entries(LONG_PIECES))("%s: within the documented bound of the exact count", async (_, text) => {
    const counter = await createTokenCounter(encoding);
    const exact = tiktoken.encode_ordinary(text).length;
    const ours = counter.countText(text);
    const chunks = Math.ceil(text.length / MAX_PIECE_CHARS);
    expect(ours).toBeGreaterThanOrEqual(exact - chunks);
    expect(ours).toBeLessThanOrEqual(Math.ceil(exact * (1 + OVER_BOUND)));
  });
});

// Texts over COUNT_SLICE_CHARS, so countMessageAsync counts them in slices.
const SLICED: Record<string, string> = {
  ...SHORT_PIECES,
  "natural text (code, logs, JSON, Unicode)": textCorpus(400).join("\n"),
  "natural text without long runs": textCorpus(400)
    .join("\n")
    .replace(/\s{2,}/g, " ")
    .replace(/\S{40,}/g, (run) => run.replace(/(.{39})/gu, "$1 ")),
  "one letter repeated": "a".repeat(100_000),
  "CJK without punctuation": LONG_PIECES["CJK without punctuation"]?.repeat(20) ?? "",
  spaces: " ".repeat(100_000),
};

describe.each(["o200k_base", "cl100k_base"] as const)("countMessageAsync with %s", (encoding) => {
  it.each(Object.entries(SLICED))("%s: the same count as countMessage", async (_, text) => {
    const counter = await createTokenCounter(encoding);
    const message = { id: "m1", role: "tool" as const, toolCallId: "c1", content: [{ type: "text" as const, text }] };
    expect(await counter.countMessageAsync(message)).toBe(counter.countMessage(message));
  });

  it("frees the event loop between slices of a big text, and not for a small one", async () => {
    const counter = await createTokenCounter(encoding);
    const turnsWhile = async (text: string): Promise<number> => {
      let turns = 0;
      let counting = true;
      const tick = (): void => {
        turns += 1;
        if (counting) setImmediate(tick);
      };
      setImmediate(tick);
      const message = { id: "m1", role: "user" as const, content: [{ type: "text" as const, text }] };
      await counter.countMessageAsync(message);
      counting = false;
      return turns;
    };
    const big = SHORT_PIECES.base64 ?? "";
    expect(await turnsWhile(big)).toBeGreaterThanOrEqual(Math.floor(big.length / COUNT_SLICE_CHARS) - 1);
    expect(await turnsWhile("a short message")).toBe(0);
  });
});
