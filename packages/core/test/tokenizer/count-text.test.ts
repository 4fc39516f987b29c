import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { get_encoding, type Tiktoken } from "tiktoken";
import { afterAll, describe, expect, it } from "vitest";
import { textCorpus } from "./text-corpus.ts";

const ENCODINGS = ["o200k_base", "cl100k_base"] as const;
const corpus = textCorpus(300);

describe.each(ENCODINGS)("countText with %s", (encoding) => {
  const tiktoken: Tiktoken = get_encoding(encoding);
  afterAll(() => tiktoken.free());

  it("matches tiktoken on 300 varied strings", async () => {
    const counter = await createTokenCounter(encoding);
    const ours = corpus.map((text) => counter.countText(text));
    const reference = corpus.map((text) => tiktoken.encode_ordinary(text).length);
    expect(ours).toEqual(reference);
  });

  it("counts known strings", async () => {
    const counter = await createTokenCounter(encoding);
    expect(counter.encoding).toBe(encoding);
    expect(counter.countText("")).toBe(0);
    expect(counter.countText("hello world")).toBe(2);
    expect(counter.countText("tiktoken is great!")).toBe(6);
  });

  it("treats special-token text as plain text", async () => {
    const counter = await createTokenCounter(encoding);
    for (const text of ["<|endoftext|>", "a <|im_start|>user\nhi<|im_end|> b", "<|fim_prefix|><|endofprompt|>"]) {
      expect(counter.countText(text)).toBe(tiktoken.encode_ordinary(text).length);
    }
    expect(counter.countText("<|endoftext|>")).toBe(7);
  });
});

describe("createTokenCounter", () => {
  it("caches one counter per encoding", async () => {
    const [a, b, c] = await Promise.all([
      createTokenCounter("o200k_base"),
      createTokenCounter("o200k_base"),
      createTokenCounter("cl100k_base"),
    ]);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(c.encoding).toBe("cl100k_base");
  });
});
