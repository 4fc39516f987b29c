import { loadOptionalPeer } from "@palimpsest/core";

/**
 * A provider SDK (`openai`, `@anthropic-ai/sdk`), imported on first use: both are optional peer
 * dependencies, installed only by users of an LLM summarizer. When it is not installed, a ValidationError
 * (code VALIDATION, `details.path` the package) saying how to install it (loadOptionalPeer).
 */
export async function loadProviderSdk<T>(
  summarizer: string,
  packageName: string,
  load: () => Promise<{ default: T }>,
): Promise<T> {
  return (await loadOptionalPeer(summarizer, packageName, load)).default;
}
