import type { ModelMessage, SystemModelMessage } from "ai";

const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
const options = { openai: { itemId: "it_1", nested: { list: [1, "two", null, true] } } };

/**
 * A conversation holding every ModelMessage part kind the AI SDK defines, with provider options,
 * bytes, URLs and every tool output shape, in an order the log accepts (each call answered, an
 * approval response between two results of the calls it belongs to).
 */
export function everyPartKind(): { instructions: SystemModelMessage[]; messages: ModelMessage[] } {
  return {
    instructions: [
      { role: "system", content: "Be brief." },
      {
        role: "system",
        content: "Cite sources.",
        providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } },
      },
    ],
    messages: [
      { role: "user", content: "plain text" },
      {
        role: "user",
        providerOptions: options,
        content: [
          { type: "text", text: "look", providerOptions: options },
          { type: "image", image: "iVBORw0KGgo=", mediaType: "image/png" },
          { type: "image", image: new URL("https://example.com/a.png") },
          { type: "image", image: PNG, mediaType: "image/png" },
          { type: "file", data: PNG, mediaType: "application/pdf", filename: "a.pdf" },
          {
            type: "file",
            data: { type: "url", url: new URL("https://example.com/b.pdf") },
            mediaType: "application/pdf",
          },
          { type: "file", data: { type: "text", text: "inline document" }, mediaType: "text/plain" },
          { type: "file", data: { type: "data", data: PNG }, mediaType: "image/png" },
        ],
      },
      {
        role: "assistant",
        providerOptions: options,
        content: [
          { type: "text", text: "thinking out loud", providerOptions: options },
          { type: "reasoning", text: "step one", providerOptions: { openai: { reasoningEncryptedContent: "enc" } } },
          { type: "reasoning-file", data: PNG, mediaType: "image/png" },
          { type: "custom", kind: "openai.compaction", providerOptions: options },
          { type: "file", data: "aGVsbG8=", mediaType: "text/plain" },
          { type: "tool-call", toolCallId: "ws1", toolName: "web_search", input: { q: "x" }, providerExecuted: true },
          {
            type: "tool-result",
            toolCallId: "ws1",
            toolName: "web_search",
            output: { type: "json", value: { hits: 3 } },
          },
          { type: "tool-call", toolCallId: "c1", toolName: "read", input: { path: "a" }, providerOptions: options },
          { type: "tool-call", toolCallId: "c2", toolName: "write", input: { path: "b", text: "é\u0000" } },
          { type: "tool-call", toolCallId: "c3", toolName: "run", input: {} },
          { type: "tool-call", toolCallId: "c4", toolName: "run", input: ["array", "input"] },
          { type: "tool-call", toolCallId: "c5", toolName: "run", input: "a string input" },
          { type: "tool-call", toolCallId: "c6", toolName: "shot", input: null },
          { type: "tool-approval-request", approvalId: "ap1", toolCallId: "c2" },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "c1", toolName: "read", output: { type: "text", value: "contents" } },
        ],
      },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: "ap1", approved: true, reason: "ok" }] },
      {
        role: "tool",
        providerOptions: options,
        content: [
          { type: "tool-result", toolCallId: "c2", toolName: "write", output: { type: "json", value: { ok: true } } },
          { type: "tool-result", toolCallId: "c3", toolName: "run", output: { type: "error-text", value: "boom" } },
          {
            type: "tool-result",
            toolCallId: "c4",
            toolName: "run",
            output: { type: "error-json", value: { code: 2 } },
          },
          {
            type: "tool-result",
            toolCallId: "c5",
            toolName: "run",
            output: { type: "execution-denied", reason: "not allowed" },
            providerOptions: options,
          },
          {
            type: "tool-result",
            toolCallId: "c6",
            toolName: "shot",
            output: {
              type: "content",
              value: [
                { type: "text", text: "a screenshot" },
                { type: "file", data: { type: "data", data: "iVBORw0KGgo=" }, mediaType: "image/png" },
              ],
            },
          },
        ],
      },
      { role: "assistant", content: "All done." },
    ],
  };
}

/** `value` as plain JSON that still tells a URL and bytes from a string or an array (for comparing across processes). */
export function normalized(value: unknown): unknown {
  if (value instanceof URL) return { url: value.href };
  if (value instanceof Uint8Array) return { bytes: Array.from(value) };
  if (Array.isArray(value)) return value.map(normalized);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, normalized(item)]));
}
