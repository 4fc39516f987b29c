import {
  type CandidateStore,
  compactionThreshold,
  definedFields,
  InvariantViolation,
  type LiveEntry,
  liveTargetTokens,
  type Message,
  type PrecompactionCandidate,
  planDelta,
  runwayTarget,
  type SessionState,
  type StoredEvent,
  type SummaryPlan,
  type SummaryResult,
  type SupersedeSpec,
  summaryReplacementFor,
  validateCandidate,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import { batchPolicyInput } from "../compaction/batch-policy-input.ts";
import { type CompactOptions, type CompactOutcome, compactSession } from "../compaction/compact.ts";
import { type ResolvedCompaction, resolveCompaction } from "../compaction/compaction-settings.ts";
import { summarizeSpan } from "../compaction/execute-compaction.ts";
import { addAux, candidateAux, summaryAux } from "../compaction/summary-aux.ts";
import type { Session } from "../runtime/session.ts";
import type { PrecompactEvent, PrecompactMiss, PrecompactMonitor } from "./precompact-monitor.ts";

/** Options of a compaction that may use the session's background candidate. */
export interface CompactWithCandidateOptions extends CompactOptions {
  candidates: CandidateStore;
  /** The off switch for this call: false compacts the usual way without looking for a candidate. */
  enabled?: boolean;
  /** The session's system prompt, when the agent keeps it outside the transcript (as the jobs were given it). */
  systemPrompt?: string;
  /** On a hit, leave the messages after the candidate verbatim when the view has room without them (default true). */
  keepDelta?: boolean;
  /** On a hit, also time a cold summary of the same span (costs one more summarizer call; for replays). */
  measureCold?: boolean;
  monitor?: PrecompactMonitor;
}

/** How the candidate was used: a hit with its timings, or a miss with its reason. */
export type PrecompactUse =
  | Omit<Extract<PrecompactEvent, { type: "hit" }>, "sessionId">
  | { type: "miss"; reason: PrecompactMiss; detail: string; wastedMs: number };

/** A compaction's outcome, with the candidate's use whenever a summary compaction was due. */
export type PrecompactOutcome = CompactOutcome & { precompact?: PrecompactUse };

/**
 * Compacts a session, using its background candidate when the batch policy plans a summary and the
 * candidate's key validates against the current view. When superseding the candidate's span alone leaves
 * the view where an accepted prune must land (runwayTarget), the hit commits the candidate's summary over
 * that span and leaves the messages after it verbatim: no summarizer call on the turn. Otherwise only the
 * delta after the candidate is summarized (continuing its summary) and one supersede replaces the whole
 * planned span. Either is one supersede (mode "precompact"), compare-and-set on the planned view version
 * under the session lock. On any miss the candidate is discarded and compact() runs as usual; prunes and
 * skips go to compact() untouched.
 */
export async function compactWithCandidate(
  session: Session,
  options: CompactWithCandidateOptions,
): Promise<PrecompactOutcome> {
  const started = performance.now();
  if (options.enabled === false) return compactSession(session, options);
  const counter = await session.tokenCounter();
  const state = session.state;
  const settings = resolveCompaction(options, state, (m) => counter.countMessage(m));
  const plan = settings.policy.plan(batchPolicyInput(state, settings, options.force === true, options.times));
  if (plan.kind !== "summary") return compactSession(session, options);
  // The view and version the plan was made from: the session's state may move during the awaits below.
  const viewVersion = state.viewVersion;
  const view = [...state.live];
  const candidate = await options.candidates.loadCandidate(session.id);
  const fallBack = async (reason: PrecompactMiss, detail: string, wastedMs: number): Promise<PrecompactOutcome> => {
    if (candidate !== undefined) await options.candidates.deleteCandidate(session.id);
    options.monitor?.record({ type: "miss", sessionId: session.id, reason, wastedMs });
    return { ...(await compactSession(session, options)), precompact: { type: "miss", reason, detail, wastedMs } };
  };
  if (candidate === undefined) return fallBack("no-candidate", "no candidate stored", 0);
  const verdict = validateCandidate(candidate, {
    sessionId: session.id,
    view,
    handedOffTo: state.handedOffTo,
    summarizer: settings.summarizer,
    targets: plan.targets,
    ...definedFields({ systemPrompt: options.systemPrompt }),
  });
  if (!verdict.hit) return fallBack(verdict.reason, verdict.detail, candidate.summaryMs);
  const basis = { viewVersion, prefixHash: candidate.key.prefixHash };
  const delta = planDelta(candidate, plan, view, verdict.covered);
  const trigger = options.trigger ?? "manual";
  const finish = async (
    event: StoredEvent,
    deltaMs: number,
    deltaMessages: number,
    keptVerbatim: number,
  ): Promise<PrecompactOutcome> => {
    const commitMs = performance.now() - started;
    await options.candidates.deleteCandidate(session.id);
    const coldSummaryMs =
      options.measureCold === true ? await timeCold(settings, plan, view) : candidate.summaryMs + deltaMs;
    const coldMs = coldSummaryMs + commitMs - deltaMs;
    const hit = {
      type: "hit" as const,
      commitMs,
      coldMs,
      coldMeasured: options.measureCold === true,
      savedMs: coldMs - commitMs,
      candidateAgeMs: Math.max(0, Date.now() - candidate.createdAt),
      deltaMessages,
      keptVerbatim,
    };
    options.monitor?.record({ ...hit, sessionId: session.id });
    return { status: "compacted", plan, event, durationMs: commitMs, precompact: hit };
  };
  if (delta.input.length > 0 && options.keepDelta !== false) {
    const prefix = { ...plan, targets: plan.targets.slice(0, verdict.covered) };
    const kept = await commitPrefixWithRoom(session, { settings, plan: prefix, candidate, basis, trigger, started });
    if (kept !== undefined) return finish(kept, 0, 0, delta.targets.length);
  }
  let text = delta.previousSummary;
  let deltaResult: SummaryResult | undefined;
  let deltaMs = 0;
  if (delta.input.length > 0) {
    try {
      // No view: the delta continues the candidate's summary, which the conversation does not hold.
      ({ result: deltaResult, ms: deltaMs } = await summarizeSpan(settings, {
        ...delta,
        maxSummaryTokens: plan.maxSummaryTokens,
      }));
      text = deltaResult.text;
    } catch (error) {
      return fallBack("delta-failed", error instanceof Error ? error.message : String(error), candidate.summaryMs);
    }
  }
  const event = await commit(session, { settings, plan, candidate, text, deltaResult, basis, trigger, started });
  // Another writer compacted while the delta was summarized: the candidate's view is gone.
  if (event === undefined) return fallBack("view-moved", "another compaction moved the view", candidate.summaryMs);
  return finish(event, deltaMs, delta.input.length, 0);
}

/**
 * The hit that needs no summarizer: the candidate's summary over its own span (`hit.plan`), committed
 * only when the view then lands at or under the runway target an accepted prune must reach, so the next
 * compaction is as far off as after a cold one. Undefined (nothing written) when it would not, or when
 * the decider refuses that span (the delta is then summarized as usual).
 */
async function commitPrefixWithRoom(
  session: Session,
  hit: Omit<HitCommit, "text" | "deltaResult">,
): Promise<StoredEvent | undefined> {
  const { settings } = hit;
  const counter = await session.tokenCounter();
  const state: Readonly<SessionState> = session.state;
  if (state.viewVersion !== hit.basis.viewVersion) return undefined;
  const count = (m: Message) => counter.countMessage(m);
  const summary = summaryReplacementFor(hit.plan, "room-check", hit.candidate.summary, count, settings.recallTool);
  const after = state.liveTokens - liveTargetTokens(state, hit.plan.targets) + summary.tokens;
  const threshold = compactionThreshold(settings.contextWindow, settings.maxOutputTokens, settings.profile.threshold);
  if (hit.plan.targets.length === 0 || after > runwayTarget(threshold, settings.profile.runway)) return undefined;
  try {
    return await commit(session, { ...hit, text: hit.candidate.summary, deltaResult: undefined });
  } catch (error) {
    if (error instanceof InvariantViolation) return undefined;
    throw error;
  }
}

/** What a hit commits: the merged summary text over the plan's span, and what it cost. */
interface HitCommit {
  settings: ResolvedCompaction;
  plan: SummaryPlan;
  candidate: PrecompactionCandidate;
  text: string;
  deltaResult: SummaryResult | undefined;
  basis: { viewVersion: number; prefixHash: string };
  trigger: "manual" | "auto";
  started: number;
}

/**
 * Commits the merged summary over the plan's whole span: the one supersede event of a hit, decided again
 * while only appends land; undefined (nothing written) once another compaction moved the view.
 */
async function commit(session: Session, hit: HitCommit): Promise<StoredEvent | undefined> {
  const { settings, plan, candidate, deltaResult } = hit;
  const counter = await session.tokenCounter();
  const count = (m: Message) => counter.countMessage(m);
  const replacement = summaryReplacementFor(plan, uuidv7(), hit.text, count, settings.recallTool);
  // tokensBefore is the plan's; the removed tokens are counted at commit, on the state the hit commits to.
  const spec: SupersedeSpec = {
    compactionId: uuidv7(),
    mode: "precompact",
    trigger: hit.trigger,
    producer: {
      policy: settings.policy.name,
      profile: settings.profile.name,
      summarizerModel: settings.summarizer.model,
      promptVersion: settings.summarizer.promptVersion,
    },
    targets: plan.targets,
    replacements: [replacement],
    basis: hit.basis,
    tokensBefore: plan.tokensBefore,
    durationMs: performance.now() - hit.started,
    aux: deltaResult === undefined ? candidateAux(candidate) : addAux(candidateAux(candidate), summaryAux(deltaResult)),
  };
  const [event] = await session.write((state) =>
    state.viewVersion === hit.basis.viewVersion ? { kind: "supersede", spec } : undefined,
  );
  return event;
}

/** Times the summary a cold compaction of the same plan, on the view it was planned on, would write (the text is thrown away). */
async function timeCold(settings: ResolvedCompaction, plan: SummaryPlan, view: readonly LiveEntry[]): Promise<number> {
  const { ms } = await summarizeSpan(settings, { ...plan, view });
  return ms;
}
