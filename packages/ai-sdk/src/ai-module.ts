import { ValidationError } from "@palimpsest/core";

/** What the adapter uses of `ai` at run time (everything else it takes from `ai` is types). */
export type AiModule = Pick<
  typeof import("ai"),
  "modelMessageSchema" | "convertToModelMessages" | "safeValidateUIMessages"
>;

/** `ai`, loaded on first use: it is an optional peer dependency. ValidationError saying how to install it. */
export async function loadAi(): Promise<AiModule> {
  try {
    const { modelMessageSchema, convertToModelMessages, safeValidateUIMessages } = await import("ai");
    return { modelMessageSchema, convertToModelMessages, safeValidateUIMessages };
  } catch (cause) {
    throw new ValidationError("openConversation needs the AI SDK: npm install ai", ["ai: not installed"], {
      cause,
      path: "ai",
    });
  }
}
