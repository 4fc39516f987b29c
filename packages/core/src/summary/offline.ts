import { SummarizerError } from "../errors.ts";
import type { Summarizer, SummaryRequest, SummaryResult } from "../ports/summarizer.ts";
import { type Extraction, extract } from "./offline-extract.ts";
import { redactSecrets } from "./redact.ts";
import { parseSections, renderSections, type SummarySection } from "./sections.ts";
import { capText, DEFAULT_SUMMARY_CAPS, type SummaryCaps, serializeForSummary } from "./serialize.ts";

/** Model name of the offline summarizer, recorded as the producer of its compactions. */
export const OFFLINE_MODEL = "offline-extractive";
/** Format version of the offline summary; bump when its sections or extraction change. */
export const OFFLINE_PROMPT_VERSION = "offline-extractive-v1";

const USER = "User Messages (verbatim)";
const ACTIONS = "Completed Actions";
const STATE = "Active State";
const ERRORS = "Errors & Fixes";
const FILES = "Relevant Files";
const INDEX = "Index";
const EARLIER = "Earlier Context";
const LIST_TITLES: ReadonlySet<string> = new Set([USER, ACTIONS, STATE, ERRORS, FILES, INDEX]);
/** Trimmed first when over budget, oldest items first; "*" stands for sections carried from elsewhere. */
const TRIM_ORDER = [ACTIONS, "*", INDEX, ERRORS, FILES, USER] as const;

/** Merges new items after the previous ones, dropping duplicates. */
function mergeItems(previous: readonly string[], next: readonly string[]): string[] {
  return [...new Set([...previous, ...next])];
}

/** Updates the previous summary's sections with a new extraction; unknown sections are carried as they are. */
function merge(previous: readonly SummarySection[], found: Extraction): SummarySection[] {
  const old = (title: string) => previous.find((s) => s.title === title)?.items ?? [];
  const list = (title: string, items: readonly string[]): SummarySection => ({
    title,
    kind: "list",
    items: mergeItems(old(title), items),
  });
  const state = found.activeState !== "" ? [found.activeState] : old(STATE);
  return [
    list(USER, found.userMessages),
    ...previous.filter((s) => !LIST_TITLES.has(s.title)),
    list(ACTIONS, found.actions),
    { title: STATE, kind: "list", items: state },
    list(ERRORS, found.errors),
    list(FILES, found.files),
    list(INDEX, found.index),
  ];
}

/** Drops the least important items (oldest first) until the rendered summary fits `maxChars`. */
function fit(sections: SummarySection[], maxChars: number): string {
  const size = () => renderSections(sections).length;
  for (const title of TRIM_ORDER) {
    const targets = sections.filter((s) => (title === "*" ? !LIST_TITLES.has(s.title) : s.title === title));
    for (const section of targets) {
      const keep = title === USER ? 1 : 0;
      while (section.items.length > keep && size() > maxChars) section.items.shift();
    }
  }
  return capText(renderSections(sections), maxChars);
}

/** Options of the offline summarizer. */
export interface OfflineSummarizerOptions {
  /** Caps applied to each message before extraction. */
  caps?: SummaryCaps;
}

/**
 * Deterministic extractive summarizer, the embedded default: the user's messages verbatim, tool calls and
 * their outcomes, errors, files, commit/PR/error index and the latest assistant text; no network, no model.
 */
export class OfflineSummarizer implements Summarizer {
  readonly model = OFFLINE_MODEL;
  readonly promptVersion = OFFLINE_PROMPT_VERSION;
  readonly #caps: SummaryCaps;

  constructor(options: OfflineSummarizerOptions = {}) {
    this.#caps = options.caps ?? DEFAULT_SUMMARY_CAPS;
  }

  /** Summarizes synchronously (wrapped in a promise); an already aborted signal throws "timeout". */
  async summarize(request: SummaryRequest, options?: { signal?: AbortSignal }): Promise<SummaryResult> {
    if (options?.signal?.aborted === true) throw new SummarizerError("timeout", "offline", "aborted before start");
    const found = extract(serializeForSummary(request.messages, this.#caps));
    const previous = parseSections(redactSecrets(request.previousSummary ?? ""), LIST_TITLES, EARLIER);
    const text = redactSecrets(fit(merge(previous, found), Math.max(1, request.maxOutputTokens) * 4));
    if (text.trim() === "") throw new SummarizerError("empty", "offline", "nothing to summarize");
    return { text };
  }
}
