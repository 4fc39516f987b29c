import {
  type CompactionFailed,
  conversationEnd,
  definedFields,
  isSummaryEntry,
  type LiveEntry,
  liveTargetTokens,
  type Replacement,
  type SessionState,
  type StoredEvent,
  type SummaryConversation,
  type SummaryResult,
  type SupersedeSpec,
  spanRun,
} from "@palimpsest/core";
import type { Session } from "../runtime/session.ts";
import type { SessionWrite } from "../runtime/session-write.ts";
import type { ResolvedCompaction } from "./compaction-settings.ts";
import { type SummaryFailure, summarizeEntries, summaryFailure } from "./summarize-entries.ts";

/** What a summarizer reads for one compaction: the entries, the summary they continue, the budget. */
export interface SummarySpan {
  input: readonly LiveEntry[];
  previousSummary?: string | undefined;
  /** How many of `input` come before the previous summary (SummaryRequest.previousSummaryAt). */
  previousSummaryAt?: number | undefined;
  /** How many earlier summaries `previousSummary` joins (SummaryRequest.previousSummaries). */
  previousSummaries?: number | undefined;
  maxSummaryTokens: number;
  /** The ids the compaction replaces, in view order, earlier summaries included (with `view`: see spanConversation). */
  targets?: readonly string[] | undefined;
  /**
   * The live view the span was planned on, read when the call starts: given where the span's earlier
   * summaries are all `previousSummary` continues, so a summarizer that reads the conversation may get it.
   */
  view?: readonly LiveEntry[] | undefined;
}

/** The summarizer and its time limit (a session's resolved compaction settings, or a micro pass's). */
export type SummarizeWith = Pick<ResolvedCompaction, "summarizer" | "summaryTimeoutMs">;

/** The one summarizer call of every compaction path (batch, pre-compaction job and hit, micro). */
export function summarizeSpan(
  using: SummarizeWith,
  span: SummarySpan,
  signal?: AbortSignal,
): Promise<{ result: SummaryResult; ms: number }> {
  const conversation =
    using.summarizer.readsConversation === true && span.view !== undefined && span.targets !== undefined
      ? spanConversation(span.view, span.targets)
      : undefined;
  return summarizeEntries({
    summarizer: using.summarizer,
    entries: span.input,
    maxOutputTokens: span.maxSummaryTokens,
    timeoutMs: using.summaryTimeoutMs,
    ...definedFields({ previousSummary: span.previousSummary }),
    ...definedFields({ previousSummaryAt: span.previousSummaryAt }),
    ...definedFields({ previousSummaries: span.previousSummaries }),
    ...definedFields({ conversation }),
    ...definedFields({ signal }),
  });
}

/**
 * The conversation a span lies in (SummaryRequest.conversation): the view's messages as they are, up to
 * the agent's last request (conversationEnd), the span's index range among them and the view's last
 * summary; undefined unless `targets` are one
 * contiguous run of `view` (a pinned message inside the span, or a target no longer live, leaves the
 * summarizer its plain request).
 */
function spanConversation(view: readonly LiveEntry[], targets: readonly string[]): SummaryConversation | undefined {
  const run = spanRun(view, targets);
  if (run === undefined) return undefined;
  const { start, end } = run;
  const conversation: SummaryConversation = {
    messages: view.slice(0, conversationEnd(view, end)).map((e) => e.message),
    start,
    end,
  };
  const lastSummary = view.findLast(isSummaryEntry);
  if (lastSummary !== undefined) conversation.lastSummaryId = lastSummary.message.id;
  return conversation;
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

/**
 * A compaction prepared on one view: the write that commits it (its supersede, or the record of its
 * failed summary) and the outcome that write's commit means.
 */
export interface PreparedCompaction<T> {
  /** The view version it was planned on (the supersede's basis). */
  viewVersion: number;
  write: Extract<SessionWrite, { kind: "supersede" | "compaction-failed" }>;
  /** The outcome, given the events the write committed. */
  committed(events: readonly StoredEvent[]): T;
}

/** What a compaction's preparation found: something to commit, or the outcome of having nothing to do. */
export type Preparation<T> = PreparedCompaction<T> | { done: T };

/**
 * Commits a compaction `prepare` plans on the session's state, through the session's one write loop.
 * When another writer commits first it is decided again: as prepared while the view has not moved (only
 * appends landed, so the summary still holds; a failed summary's record always does); rebased on the
 * moved view while every message it replaces is still live there (another compaction or a retraction
 * took something else: the same replacements over the same messages, measured again, no new summary);
 * prepared anew otherwise (the policy may then find nothing left to do). An error of `prepare` (a
 * precondition of the caller's, such as a range no longer live) reaches the caller.
 */
export async function commitCompaction<T>(
  session: Session,
  prepare: (state: Readonly<SessionState>) => Promise<Preparation<T>>,
): Promise<T> {
  let prepared: PreparedCompaction<T> | undefined;
  let done: { value: T } | undefined;
  const events = await session.write(async (state) => {
    const reused = prepared === undefined ? undefined : holding(prepared, state);
    if (reused !== undefined) {
      prepared = reused;
      return reused.write;
    }
    const next = await prepare(state);
    prepared = "done" in next ? undefined : next;
    done = "done" in next ? { value: next.done } : undefined;
    return prepared?.write;
  });
  if (prepared !== undefined) return prepared.committed(events);
  if (done === undefined) throw new Error("a compaction was neither prepared nor done");
  return done.value;
}

/** The prepared compaction as it holds on `state`: as it is, rebased on a moved view, or undefined (prepare anew). */
function holding<T>(prepared: PreparedCompaction<T>, state: Readonly<SessionState>): PreparedCompaction<T> | undefined {
  const { write } = prepared;
  if (write.kind === "compaction-failed" || prepared.viewVersion === state.viewVersion) return prepared;
  const live = new Set(state.live.map((e) => e.message.id));
  if (!write.spec.targets.every((id) => live.has(id))) return undefined;
  // Measured again on the view it now commits to: supersedeFor takes the state's tokens before and after.
  const { tokensBefore: _before, removedTokens: _removed, tokensAfter: _after, ...spec } = write.spec;
  return {
    ...prepared,
    viewVersion: state.viewVersion,
    write: { kind: "supersede", spec: { ...spec, basis: { ...spec.basis, viewVersion: state.viewVersion } } },
  };
}

/** The supersede of a prepared compaction whose outcome is its one event; planned on `spec.basis`, or the state's view. */
export function preparedSupersede<T>(
  state: Readonly<SessionState>,
  spec: SupersedeSpec,
  outcome: (event: StoredEvent) => T,
): PreparedCompaction<T> {
  return {
    viewVersion: spec.basis?.viewVersion ?? state.viewVersion,
    write: { kind: "supersede", spec: { ...spec, basis: spec.basis ?? { viewVersion: state.viewVersion } } },
    committed: (e) => outcome(first(e)),
  };
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
 * Prepares a summary step on `state`: writes the summary; a summarizer failure becomes the record of a
 * compaction-failed event (with the step's attempt), a rejected replacement too (reason "other");
 * otherwise the one supersede.
 */
export async function prepareSummary(
  state: Readonly<SessionState>,
  step: SummaryStep,
): Promise<PreparedCompaction<SummaryStepOutcome>> {
  const viewVersion = state.viewVersion; // read before the summary is awaited: the state may move meanwhile
  const failed = (failure: SummaryFailure, error: unknown, replacement?: Replacement) => ({
    viewVersion,
    write: { kind: "compaction-failed" as const, data: { ...failure, ...step.failure() } },
    committed: (events: readonly StoredEvent[]): SummaryStepOutcome => ({
      status: "failed",
      failure,
      error,
      event: first(events),
      ...(replacement === undefined ? {} : { replacement }),
    }),
  });
  let result: SummaryResult;
  try {
    ({ result } = await summarizeSpan(step.using, step.span));
  } catch (error) {
    return failed(summaryFailure(error, step.using.summarizer), error);
  }
  const replacement = step.replacement(result.text);
  const rejected = step.reject?.(replacement);
  if (rejected !== undefined) return failed({ reason: "other", detail: rejected }, undefined, replacement);
  const spec = step.spec(replacement, result);
  return preparedSupersede(state, { ...spec, basis: spec.basis ?? { viewVersion } }, (event) => ({
    status: "compacted",
    event,
    replacement,
    result,
  }));
}

/** The one event a compaction's write committed. */
function first(events: readonly StoredEvent[]): StoredEvent {
  const [event] = events;
  if (event === undefined) throw new Error("a compaction's write committed no event");
  return event;
}
