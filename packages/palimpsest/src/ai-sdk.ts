/** Vercel AI SDK conversations (re-exported from @palimpsest/ai-sdk): needs `ai` beside it. */
export * from "@palimpsest/ai-sdk";
