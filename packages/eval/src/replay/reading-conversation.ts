import type { Summarizer } from "@palimpsest/core";

/**
 * `summarizer` as one that reads the conversation (Summarizer.readsConversation): the runtime passes it the
 * conversation, the cost-optimal policy prices its reading at the cache's read price, and a replay bills each
 * of its batch summaries as the agent's own request (MeasuredCompaction.summarizerRequest). It writes what
 * `summarizer` writes (the offline summarizer ignores the conversation), so a replay compares the two
 * pricings on the same summaries.
 */
export function readingConversation(summarizer: Summarizer): Summarizer {
  return {
    model: summarizer.model,
    promptVersion: summarizer.promptVersion,
    readsConversation: true,
    summarize: (request, options) => summarizer.summarize(request, options),
  };
}
