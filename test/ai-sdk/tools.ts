import { tool } from "ai";
import { z } from "zod";

/** A weather tool whose answer has `words` distinct words of detail (about two tokens each: big outputs fill a small window). */
export function weatherTool(words = 0) {
  return tool({
    description: "the weather in a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({
      city,
      sky: "sunny",
      detail: Array.from({ length: words }, (_, i) => `${city}-${i}`).join(" "),
    }),
  });
}

/** A tool that runs only after the user approved the call. */
export const deleteTool = tool({
  description: "delete a file",
  inputSchema: z.object({ path: z.string() }),
  needsApproval: true,
  execute: async ({ path }) => `deleted ${path}`,
});
