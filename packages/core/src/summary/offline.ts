import { SummarizerError } from "../errors.ts";
import { supersededLine } from "../messages/summary-lines.ts";
import type { Summarizer, SummaryRequest, SummaryResult } from "../ports/summarizer.ts";
import { addCommand, addFigures, addFile, extract } from "./offline-extract.ts";
import { fitDoc } from "./offline-fit.ts";
import { redactSecrets } from "./redact.ts";
import { DEFAULT_SUMMARY_CAPS, type SummaryCaps, serializeForSummary } from "./serialize.ts";
import { earlierSummaries, emptyDoc, foldSuperseded, parseDoc, type SummaryDoc } from "./summary-format.ts";

/** Model name of the offline summarizer, recorded as the producer of its compactions. */
export const OFFLINE_MODEL = "offline-extractive";
/** Format version of the offline summary; bump when its sections or extraction change. */
export const OFFLINE_PROMPT_VERSION = "offline-extractive-v6";

const unique = (values: readonly string[]) => [...new Set(values)];

/**
 * Merges summary documents in chronological order, section by section: a request, constraint, error or
 * superseded span stays once (first place kept), files and commands are counted together, figures are
 * gathered by source, and the state is the latest one found.
 */
export function mergeDocs(docs: readonly SummaryDoc[]): SummaryDoc {
  const out = emptyDoc();
  for (const doc of docs) {
    for (const r of doc.requests) if (!out.requests.some((o) => o.text === r.text)) out.requests.push({ ...r });
    out.constraints.push(...doc.constraints);
    for (const f of doc.files) addFile(out.files, f);
    for (const c of doc.commands) addCommand(out.commands, c);
    out.errors.push(...doc.errors);
    out.errorNames.push(...doc.errorNames);
    if (doc.state.length > 0) out.state = [...doc.state];
    for (const f of doc.figures) addFigures(out.figures, f);
    out.superseded.push(...doc.superseded);
    out.carried.push(...doc.carried);
  }
  out.constraints = unique(out.constraints);
  out.errors = unique(out.errors);
  const written = out.errors.join("\n");
  out.errorNames = unique(out.errorNames).filter((n) => n !== "" && !written.includes(n));
  out.superseded = foldSuperseded(unique(out.superseded));
  return out;
}

/** Options of the offline summarizer. */
export interface OfflineSummarizerOptions {
  /** Caps applied to each message before extraction. */
  caps?: SummaryCaps;
}

/**
 * Deterministic extractive summarizer, the embedded default (no network, no model): the user's requests
 * verbatim and in order, their constraints, the files tool calls touched, every tool call with its
 * outcome (failures first), errors with their names, the current state and next step with the measured
 * numbers each source gave, and a recovery
 * pointer to the superseded messages; within `maxOutputTokens` by dropping the least important lines.
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
    const messages = serializeForSummary(request.messages, this.#caps);
    const at = Math.min(Math.max(0, request.previousSummaryAt ?? 0), messages.length);
    const before = extract(messages.slice(0, at));
    const previous = parseDoc(redactSecrets(request.previousSummary ?? ""));
    const after = extract(messages.slice(at));
    const line = supersededLine(messages, earlierSummaries(request));
    const span = { ...emptyDoc(), superseded: line === undefined ? [] : [line] };
    const doc = mergeDocs([before, previous, after, span]);
    const facts = [
      doc.requests,
      doc.constraints,
      doc.files,
      doc.commands,
      doc.errors,
      doc.state,
      doc.figures,
      doc.carried,
    ];
    if (facts.every((list) => list.length === 0) && doc.errorNames.length === 0)
      throw new SummarizerError("empty", "offline", "nothing to summarize");
    const fitted = fitDoc(doc, Math.max(1, request.maxOutputTokens), this.#caps.messageChars);
    return { text: redactSecrets(fitted.text) };
  }
}
