import { definedFields } from "../defined-fields.ts";
import { SummarizerError } from "../errors.ts";
import type { SummaryResult } from "../ports/summarizer.ts";
import { redactSecrets } from "./redact.ts";
import { checkSummary } from "./summary-check.ts";

/**
 * Checks and cleans a model's answer, for a summarizer on a provider's SDK: redacted again, trimmed,
 * never empty (SummarizerError "empty"), every section present and within `budget` tokens (else
 * SummarizerError "malformed"); the result carries the usage given (the counts that are defined).
 */
export function finishSummary(
  provider: string,
  text: string,
  budget: number,
  usage: { [K in keyof Omit<SummaryResult, "text">]?: number | undefined },
): SummaryResult {
  const clean = redactSecrets(text).trim();
  if (clean === "") throw new SummarizerError("empty", provider, "the model returned no summary text");
  checkSummary(provider, clean, budget, usage.outputTokens);
  return { text: clean, ...definedFields(usage) };
}
