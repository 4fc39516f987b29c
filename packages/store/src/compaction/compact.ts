import {
  type CompactionPlan,
  formatSummaryMessage,
  type Message,
  type StoredEvent,
  type SummarizerError,
  type SummaryResult,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { Session } from "../runtime/session.ts";
import { batchPolicyInput } from "./batch-policy-input.ts";
import { type CompactionSettings, resolveCompaction } from "./compaction-settings.ts";
import { summarizeEntries, summaryFailure } from "./summarize-entries.ts";

/** Options of one compaction run. */
export interface CompactOptions extends CompactionSettings {
  /** Run even below the threshold or while backing off. */
  force?: boolean;
  trigger?: "manual" | "auto";
}

/** What a compaction run did: committed one supersede event, decided there was nothing to do, or failed. */
export type CompactOutcome =
  | { status: "compacted"; plan: Exclude<CompactionPlan, { kind: "none" }>; event: StoredEvent; durationMs: number }
  | { status: "skipped"; reason: string }
  | { status: "failed"; reason: SummarizerError["details"]["reason"]; error: unknown; event: StoredEvent };

/**
 * Runs the session's compaction policy once and commits exactly one supersede event, compare-and-set on
 * the view version the plan was made from. Messages appended while a summary is written survive
 * verbatim after it; a failed summary is recorded as a compaction-failed event and the view is untouched.
 * A concurrent compaction makes this one throw ConcurrencyConflict, never corrupt the view.
 */
export async function compact(session: Session, options: CompactOptions = {}): Promise<CompactOutcome> {
  const started = Date.now();
  const counter = await session.tokenCounter();
  const settings = resolveCompaction(options, session.state, (m) => counter.countMessage(m));
  const state = session.state;
  const plan = settings.policy.plan(batchPolicyInput(state, settings, options.force === true));
  if (plan.kind === "none") return { status: "skipped", reason: plan.reason };
  const trigger = options.trigger ?? "manual";
  const producer = { policy: settings.policy.name, profile: settings.profile.name };
  if (plan.kind === "prune") {
    const [event] = await session.supersede({
      compactionId: uuidv7(),
      targets: plan.targets,
      replacements: plan.replacements,
      mode: "prune",
      basis: { viewVersion: state.viewVersion },
      producer,
      stats: { tokensBefore: plan.tokensBefore, tokensAfter: plan.tokensAfter, durationMs: Date.now() - started },
      trigger,
    });
    return { status: "compacted", plan, event: event as StoredEvent, durationMs: Date.now() - started };
  }
  const basis = { viewVersion: state.viewVersion };
  const removed = targetTokens(session, plan.targets);
  let result: SummaryResult;
  try {
    ({ result } = await summarizeEntries({
      summarizer: settings.summarizer,
      entries: plan.input,
      maxOutputTokens: plan.maxSummaryTokens,
      timeoutMs: settings.summaryTimeoutMs,
      ...(plan.previousSummary === undefined ? {} : { previousSummary: plan.previousSummary }),
    }));
  } catch (error) {
    const failure = summaryFailure(error, settings.summarizer);
    const [event] = await session.recordCompactionFailure({
      ...failure,
      mode: "summary",
      attempt: consecutiveFailures(session) + 1,
      targets: plan.targets,
    });
    return { status: "failed", reason: failure.reason, error, event: event as StoredEvent };
  }
  const message: Message = {
    id: uuidv7(),
    role: plan.role,
    content: [{ type: "text", text: formatSummaryMessage(result.text) }],
  };
  const tokens = counter.countMessage(message);
  const [event] = await session.supersede({
    compactionId: uuidv7(),
    targets: plan.targets,
    replacements: [{ kind: "summary", message, tokens }],
    mode: "summary",
    basis,
    producer: {
      ...producer,
      summarizerModel: settings.summarizer.model,
      promptVersion: settings.summarizer.promptVersion,
    },
    stats: {
      tokensBefore: plan.tokensBefore,
      tokensAfter: plan.tokensBefore - removed + tokens,
      durationMs: Date.now() - started,
      ...(result.inputTokens === undefined ? {} : { auxTokensIn: result.inputTokens }),
      ...(result.outputTokens === undefined ? {} : { auxTokensOut: result.outputTokens }),
    },
    trigger,
  });
  return { status: "compacted", plan, event: event as StoredEvent, durationMs: Date.now() - started };
}

function targetTokens(session: Session, targets: readonly string[]): number {
  const set = new Set(targets);
  return session.state.live.reduce((n, e) => (set.has(e.message.id) ? n + e.tokens : n), 0);
}

function consecutiveFailures(session: Session): number {
  const lastCompaction = session.state.recentCompactions.at(-1)?.at ?? 0;
  return session.state.recentFailures.filter((f) => f.at >= lastCompaction).length;
}
