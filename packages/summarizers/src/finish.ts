import { checkSummary, redactSecrets, SummarizerError, type SummaryResult } from "@palimpsest/core";

/**
 * Checks and cleans a model's answer: redacted again, trimmed, never empty, every section present and
 * within `budget` tokens (else SummarizerError "malformed").
 */
export function finishSummary(
  provider: string,
  text: string,
  budget: number,
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined },
): SummaryResult {
  const clean = redactSecrets(text).trim();
  if (clean === "") throw new SummarizerError("empty", provider, "the model returned no summary text");
  checkSummary(provider, clean, budget, usage.outputTokens);
  const result: SummaryResult = { text: clean };
  if (usage.inputTokens !== undefined) result.inputTokens = usage.inputTokens;
  if (usage.outputTokens !== undefined) result.outputTokens = usage.outputTokens;
  return result;
}
