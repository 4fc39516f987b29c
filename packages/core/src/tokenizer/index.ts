export { DEFAULT_ENCODING, encodingForModel } from "./encoding-for-model.ts";
export { createTokenCounter } from "./gpt-tokenizer.ts";
export { countMessageTokens, IMAGE_TOKENS, MESSAGE_OVERHEAD_TOKENS } from "./message-cost.ts";
