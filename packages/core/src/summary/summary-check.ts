import { SummarizerError } from "../errors.ts";
import { estimateTokens } from "../messages/estimate-tokens.ts";
import { SUMMARY_SECTIONS } from "./summary-format.ts";

/** The sections a summary lacks (its `## ` headings compared with SUMMARY_SECTIONS), in order. */
export function missingSections(text: string): string[] {
  const headings = new Set(
    text
      .split("\n")
      .map((l) => /^##\s+(.+?)\s*$/.exec(l)?.[1])
      .filter((t) => t !== undefined),
  );
  return SUMMARY_SECTIONS.filter((title) => !headings.has(title));
}

/**
 * Checks a model's answer: every section present, and within `budget` tokens (the provider's count of
 * output tokens when it gave one, else the estimate). Throws SummarizerError "malformed" saying what is
 * wrong, so a bad answer is recorded as a failed compaction instead of replacing the messages.
 */
export function checkSummary(provider: string, text: string, budget: number, outputTokens?: number): void {
  const missing = missingSections(text);
  if (missing.length > 0)
    throw new SummarizerError("malformed", provider, `the summary lacks the section(s) ${missing.join(", ")}`);
  const tokens = outputTokens ?? estimateTokens(text);
  if (tokens > budget)
    throw new SummarizerError("malformed", provider, `the summary has ${tokens} tokens, over its budget of ${budget}`);
}
