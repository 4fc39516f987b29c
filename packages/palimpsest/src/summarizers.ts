/** Network summarizers: OpenAI-compatible and Anthropic adapters (re-exported from @palimpsest/summarizers). */
export * from "@palimpsest/summarizers";
