/**
 * The OpenAI Agents SDK Session (re-exported from @palimpsest/openai-agents): needs
 * `@openai/agents-core` (installed with `@openai/agents`) beside it.
 */
export * from "@palimpsest/openai-agents";
