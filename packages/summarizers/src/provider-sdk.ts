import { ValidationError } from "@palimpsest/core";

/**
 * A provider SDK (`openai`, `@anthropic-ai/sdk`), imported on first use: both are optional peer
 * dependencies, installed only by users of an LLM summarizer. When it is missing, a ValidationError
 * (code VALIDATION, `details.path` the package) saying how to install it.
 */
export async function loadProviderSdk<T>(
  summarizer: string,
  packageName: string,
  load: () => Promise<{ default: T }>,
): Promise<T> {
  try {
    return (await load()).default;
  } catch (cause) {
    throw new ValidationError(
      `${summarizer} needs the ${packageName} package: npm install ${packageName}`,
      [`${packageName}: not installed`],
      { cause, path: packageName },
    );
  }
}
