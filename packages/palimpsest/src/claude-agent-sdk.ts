/**
 * The Claude Agent SDK SessionStore (re-exported from @palimpsest/claude-agent-sdk): needs
 * `@anthropic-ai/claude-agent-sdk` installed beside it.
 */
export * from "@palimpsest/claude-agent-sdk";
