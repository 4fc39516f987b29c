import {
  type CompactionFailed,
  definedFields,
  type LiveEntry,
  liveTargetTokens,
  type Replacement,
  type SessionState,
  type StoredEvent,
  type SummaryResult,
  type SupersedeSpec,
  supersedeFor,
} from "@palimpsest/core";
import type { Session } from "../runtime/session.ts";
import type { ResolvedCompaction } from "./compaction-settings.ts";
import { type SummaryFailure, summarizeEntries, summaryFailure } from "./summarize-entries.ts";

/** What a summarizer reads for one compaction: the entries, the summary they continue, the budget. */
export interface SummarySpan {
  input: readonly LiveEntry[];
  previousSummary?: string | undefined;
  /** How many of `input` come before the previous summary (SummaryRequest.previousSummaryAt). */
  previousSummaryAt?: number | undefined;
  maxSummaryTokens: number;
}

/** The summarizer and its time limit (a session's resolved compaction settings, or a micro pass's). */
export type SummarizeWith = Pick<ResolvedCompaction, "summarizer" | "summaryTimeoutMs">;

/** The one summarizer call of every compaction path (batch, pre-compaction job and hit, micro). */
export function summarizeSpan(
  using: SummarizeWith,
  span: SummarySpan,
  signal?: AbortSignal,
): Promise<{ result: SummaryResult; ms: number }> {
  return summarizeEntries({
    summarizer: using.summarizer,
    entries: span.input,
    maxOutputTokens: span.maxSummaryTokens,
    timeoutMs: using.summaryTimeoutMs,
    ...definedFields({ previousSummary: span.previousSummary }),
    ...definedFields({ previousSummaryAt: span.previousSummaryAt }),
    ...definedFields({ signal }),
  });
}

/**
 * The basis and token counts of a compaction measured when it is planned, before anything is awaited
 * (the session's state is folded in place, so it may have moved by the commit).
 */
export function measuredAtPlan(
  state: Readonly<SessionState>,
  targets: readonly string[],
): Pick<SupersedeSpec, "basis" | "tokensBefore" | "removedTokens"> {
  return {
    basis: { viewVersion: state.viewVersion },
    tokensBefore: state.liveTokens,
    removedTokens: liveTargetTokens(state, targets),
  };
}

/** Commits one supersede (a "replace" step) decided on the session's state now: prune, range, micro, hit. */
export async function commitSupersede(session: Session, spec: SupersedeSpec): Promise<StoredEvent> {
  const [event] = await session.supersede(supersedeFor(session.state, spec));
  return event as StoredEvent;
}

/** A "summarize" step: write a summary of the span, then commit it as one supersede. */
export interface SummaryStep {
  using: SummarizeWith;
  span: SummarySpan;
  /** What a failed summary records, read when it fails (the failure's class and detail come from the error). */
  failure(): Pick<CompactionFailed, "mode" | "attempt" | "targets">;
  /** The counted replacement that holds the summary text. */
  replacement(text: string): Replacement;
  /** Why the replacement must not be committed (recorded as a failure), or undefined to commit it. */
  reject?(replacement: Replacement): string | undefined;
  /** The supersede of the replacement (called after summarizing, so its duration includes the summary). */
  spec(replacement: Replacement, result: SummaryResult): SupersedeSpec;
}

/** What a summary step did: committed, or recorded a compaction-failed event (the view untouched). */
export type SummaryStepOutcome =
  | { status: "compacted"; event: StoredEvent; replacement: Replacement; result: SummaryResult }
  | { status: "failed"; failure: SummaryFailure; error: unknown; event: StoredEvent; replacement?: Replacement };

/**
 * Runs a summary step: a summarizer failure is recorded as compaction-failed (with the step's attempt),
 * a rejected replacement too (reason "other"); otherwise the one supersede is committed.
 */
export async function summarizeAndSupersede(session: Session, step: SummaryStep): Promise<SummaryStepOutcome> {
  let result: SummaryResult;
  try {
    ({ result } = await summarizeSpan(step.using, step.span));
  } catch (error) {
    const failure = summaryFailure(error, step.using.summarizer);
    const [event] = await session.recordCompactionFailure({ ...failure, ...step.failure() });
    return { status: "failed", failure, error, event: event as StoredEvent };
  }
  const replacement = step.replacement(result.text);
  const rejected = step.reject?.(replacement);
  if (rejected !== undefined) {
    const failure: SummaryFailure = { reason: "other", detail: rejected };
    const [event] = await session.recordCompactionFailure({ ...failure, ...step.failure() });
    return { status: "failed", failure, error: undefined, event: event as StoredEvent, replacement };
  }
  const event = await commitSupersede(session, step.spec(replacement, result));
  return { status: "compacted", event, replacement, result };
}
