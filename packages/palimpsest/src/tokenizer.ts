/** Token counting with gpt-tokenizer (re-exported from @palimpsest/core/tokenizer). */
export * from "@palimpsest/core/tokenizer";
