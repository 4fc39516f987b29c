import {
  type CompactionPlan,
  type StoredEvent,
  type SummarizerError,
  summaryReplacementFor,
  type TokenCounter,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { Session } from "../runtime/session.ts";
import type { ResolvedCompaction } from "./compaction-settings.ts";
import { commitSupersede, measuredAtPlan, summarizeAndSupersede } from "./execute-compaction.ts";

/** What a compaction run did: committed one supersede event, decided there was nothing to do, or failed. */
export type CompactOutcome =
  | { status: "compacted"; plan: Exclude<CompactionPlan, { kind: "none" }>; event: StoredEvent; durationMs: number }
  | { status: "skipped"; reason: string }
  | { status: "failed"; reason: SummarizerError["details"]["reason"]; error: unknown; event: StoredEvent };

/** A batch plan to commit, with what it was planned under and when its run started. */
export interface PlanRun {
  settings: ResolvedCompaction;
  counter: TokenCounter;
  trigger: "manual" | "auto";
  /** Date.now() when the run started (its durationMs counts from here). */
  started: number;
}

/**
 * Commits a batch policy's plan, dispatching on its kind (not on the policy): a prune is one supersede
 * as planned; a summary is written, recorded as compaction-failed if the summarizer fails, else committed.
 * Reads the session's state synchronously first: the plan's basis is the view it was made from.
 */
export async function executePlan(
  session: Session,
  plan: Exclude<CompactionPlan, { kind: "none" }>,
  run: PlanRun,
): Promise<CompactOutcome> {
  const { settings, counter, trigger, started } = run;
  const state = session.state;
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
