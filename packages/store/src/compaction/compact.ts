import { type CompactionPlan, type StoredEvent, type SummarizerError, summaryReplacementFor } from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { Session } from "../runtime/session.ts";
import { batchPolicyInput } from "./batch-policy-input.ts";
import { type CompactionSettings, resolveCompaction } from "./compaction-settings.ts";
import { commitSupersede, measuredAtPlan, summarizeAndSupersede } from "./execute-compaction.ts";

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
    const event = await commitSupersede(session, {
      compactionId: uuidv7(),
      mode: "prune",
      trigger,
      producer,
      targets: plan.targets,
      replacements: plan.replacements,
      basis: { viewVersion: state.viewVersion },
      tokensBefore: plan.tokensBefore,
      tokensAfter: plan.tokensAfter,
      durationMs: Date.now() - started,
    });
    return { status: "compacted", plan, event, durationMs: Date.now() - started };
  }
  // Measured when planned: the removed tokens are those of the targets before the summary is written.
  const measured = { ...measuredAtPlan(state, plan.targets), tokensBefore: plan.tokensBefore };
  const outcome = await summarizeAndSupersede(session, {
    using: settings,
    span: plan,
    failure: () => ({ mode: "summary", attempt: consecutiveFailures(session) + 1, targets: plan.targets }),
    replacement: (text) => summaryReplacementFor(plan, uuidv7(), text, (m) => counter.countMessage(m)),
    spec: (replacement, result) => ({
      compactionId: uuidv7(),
      mode: "summary",
      trigger,
      producer: {
        ...producer,
        summarizerModel: settings.summarizer.model,
        promptVersion: settings.summarizer.promptVersion,
      },
      targets: plan.targets,
      replacements: [replacement],
      ...measured,
      durationMs: Date.now() - started,
      aux: { in: result.inputTokens, out: result.outputTokens },
    }),
  });
  if (outcome.status === "failed") {
    return { status: "failed", reason: outcome.failure.reason, error: outcome.error, event: outcome.event };
  }
  return { status: "compacted", plan, event: outcome.event, durationMs: Date.now() - started };
}

function consecutiveFailures(session: Session): number {
  const lastCompaction = session.state.recentCompactions.at(-1)?.at ?? 0;
  return session.state.recentFailures.filter((f) => f.at >= lastCompaction).length;
}
