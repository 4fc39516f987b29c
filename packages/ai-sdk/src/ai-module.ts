import { loadOptionalPeer } from "@palimpsest/core";

/** What the adapter uses of `ai` at run time (everything else it takes from `ai` is types). */
export type AiModule = Pick<
  typeof import("ai"),
  "modelMessageSchema" | "convertToModelMessages" | "safeValidateUIMessages"
>;

/** `ai`, loaded on first use: it is an optional peer dependency. ValidationError saying how to install it. */
export async function loadAi(): Promise<AiModule> {
  const { modelMessageSchema, convertToModelMessages, safeValidateUIMessages } = await loadOptionalPeer(
    "openConversation",
    "ai",
    () => import("ai"),
  );
  return { modelMessageSchema, convertToModelMessages, safeValidateUIMessages };
}
