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

/** A tool the client runs (no execute here): its output arrives as a new part of the assistant UI message. */
export const askTool = tool({
  description: "ask the user",
  inputSchema: z.object({ question: z.string() }),
  outputSchema: z.string(),
});
