import { type CandidateStore, candidateIsFresh, definedFields, planCandidate, SummarizerError } from "@palimpsest/core";
import { batchPolicyInput } from "../compaction/batch-policy-input.ts";
import { type CompactionSettings, resolveCompaction } from "../compaction/compaction-settings.ts";
import { summarizeSpan } from "../compaction/execute-compaction.ts";
import type { Session } from "../runtime/session.ts";
import type { JobOutcome } from "./precompact-monitor.ts";
import type { PrecompactSettings } from "./precompact-settings.ts";

/** One background job: a session, and the seq of its last completed turn when the job was asked for. */
export interface PrecompactRequest {
  session: Session;
  stableThroughSeq: number;
}

/** What a job needs besides its request: where candidates go, and how the session compacts. */
export interface PrecompactJobContext {
  candidates: CandidateStore;
  compaction: CompactionSettings;
  settings: PrecompactSettings;
}

/** How a job ended and what it cost; `wastedMs` counts summarization that will never reach a commit. */
export interface JobReport {
  sessionId: string;
  outcome: JobOutcome;
  reason: string;
  summaryMs: number;
  wastedMs: number;
}

/**
 * Summarizes a session's stable prefix into a candidate. It reads the session's state once, writes no
 * event (only the candidate cache), and stores the candidate only while the session's view version is
 * still the one it read: a job whose basis moved while it summarized is discarded, never committed.
 */
export async function runPrecompactJob(
  request: PrecompactRequest,
  ctx: PrecompactJobContext,
  signal: AbortSignal,
): Promise<JobReport> {
  const { session } = request;
  const report = (outcome: JobOutcome, reason: string, summaryMs = 0, wastedMs = 0): JobReport => ({
    sessionId: session.id,
    outcome,
    reason,
    summaryMs,
    wastedMs,
  });
  const counter = await session.tokenCounter();
  const state = session.state;
  if (state.handedOffTo !== undefined) return report("skipped", "the session was handed off");
  const settings = resolveCompaction(ctx.compaction, state, (m) => counter.countMessage(m));
  const input = batchPolicyInput(state, settings, false);
  const systemPrompt = ctx.settings.systemPrompt?.(session.id);
  const view = state.live.slice();
  const plan = planCandidate({
    ...input,
    view,
    sessionId: session.id,
    stableThroughSeq: request.stableThroughSeq,
    softRatio: ctx.settings.softRatio,
    summarizer: settings.summarizer,
    ...definedFields({ systemPrompt }),
  });
  if (plan.kind === "none") return report("skipped", plan.reason);
  const existing = await ctx.candidates.loadCandidate(session.id);
  const context = {
    sessionId: session.id,
    view,
    handedOffTo: undefined,
    summarizer: settings.summarizer,
    ...definedFields({ systemPrompt }),
  };
  if (existing !== undefined && candidateIsFresh(existing, plan, context, ctx.settings.refreshTokens)) {
    return report("fresh", "a valid candidate already covers this prefix");
  }
  if (signal.aborted) return report("cancelled", "cancelled before summarizing");
  const started = performance.now();
  let summary: Awaited<ReturnType<typeof summarizeSpan>>;
  try {
    summary = await summarizeSpan(settings, { ...plan, view }, signal);
  } catch (error) {
    const ms = performance.now() - started;
    if (signal.aborted) return report("cancelled", "cancelled while summarizing", ms, ms);
    return report("failed", error instanceof SummarizerError ? error.details.reason : "other", ms, ms);
  }
  const { result, ms } = summary;
  if (signal.aborted) return report("cancelled", "cancelled while summarizing", ms, ms);
  if (session.state.viewVersion !== plan.basisViewVersion) {
    return report("discarded", "the view moved while the job summarized", ms, ms);
  }
  const stored = await ctx.candidates.saveCandidate({
    key: plan.key,
    targets: plan.targets,
    summary: result.text,
    basisViewVersion: plan.basisViewVersion,
    createdAt: Date.now(),
    summaryMs: ms,
    ...definedFields({
      auxTokensIn: result.inputTokens,
      auxTokensOut: result.outputTokens,
      auxTokensCacheRead: result.cachedInputTokens,
      auxTokensCacheWrite: result.cacheWriteTokens,
    }),
  });
  if (!stored) return report("discarded", "the view moved while the job summarized", ms, ms);
  return report("stored", plan.reason, ms, existing?.summaryMs ?? 0);
}
