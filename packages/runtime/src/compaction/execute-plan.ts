import {
  type CompactionPlan,
  type SessionState,
  type StoredEvent,
  type SummarizerError,
  summaryReplacementFor,
  type TokenCounter,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { ResolvedCompaction } from "./compaction-settings.ts";
import { measuredAtPlan, type PreparedCompaction, preparedSupersede, prepareSummary } from "./execute-compaction.ts";
import { summaryAux } from "./summary-aux.ts";

/** What a compaction run did: committed one supersede event, decided there was nothing to do, or failed. */
export type CompactOutcome =
  | { status: "compacted"; plan: Exclude<CompactionPlan, { kind: "none" }>; event: StoredEvent; durationMs: number }
  | {
      status: "skipped";
      reason: string;
      /** Set when an automatic compaction was planned but would not have shrunk the view (nothing written). */
      grows?: { tokensBefore: number; tokensAfter: number };
    }
  | { status: "failed"; reason: SummarizerError["details"]["reason"]; error: unknown; event: StoredEvent };

/** What a batch plan is committed under, and when its run started. */
export interface PlanRun {
  settings: ResolvedCompaction;
  counter: TokenCounter;
  trigger: "manual" | "auto";
  /** Date.now() when the run started (its durationMs counts from here). */
  started: number;
}

/**
 * Prepares a batch policy's plan on the state it was made from, dispatching on its kind (not on the
 * policy): a prune is one supersede as planned; a summary is written, and becomes the record of a failed
 * compaction if the summarizer fails, else its supersede. Committed by commitCompaction.
 */
export async function preparePlan(
  state: Readonly<SessionState>,
  plan: Exclude<CompactionPlan, { kind: "none" }>,
  run: PlanRun,
): Promise<PreparedCompaction<CompactOutcome>> {
  const { settings, counter, trigger, started } = run;
  const producer = { policy: settings.policy.name, profile: settings.profile.name };
  const compacted = (event: StoredEvent): CompactOutcome => ({
    status: "compacted",
    plan,
    event,
    durationMs: Date.now() - started,
  });
  if (plan.kind === "prune") {
    const spec = {
      compactionId: uuidv7(),
      mode: "prune" as const,
      trigger,
      producer,
      targets: plan.targets,
      replacements: plan.replacements,
      basis: { viewVersion: state.viewVersion },
      tokensBefore: plan.tokensBefore,
      tokensAfter: plan.tokensAfter,
      durationMs: Date.now() - started,
    };
    return preparedSupersede(state, spec, compacted);
  }
  // Measured when planned: the removed tokens are those of the targets before the summary is written.
  const measured = { ...measuredAtPlan(state, plan.targets), tokensBefore: plan.tokensBefore };
  const step = await prepareSummary(state, {
    using: settings,
    span: { ...plan, view: state.live },
    failure: () => ({ mode: "summary", attempt: consecutiveFailures(state) + 1, targets: plan.targets }),
    replacement: (text) =>
      summaryReplacementFor(plan, uuidv7(), text, (m) => counter.countMessage(m), settings.recallTool),
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
      aux: summaryAux(result),
    }),
  });
  return {
    ...step,
    committed: (events): CompactOutcome => {
      const outcome = step.committed(events);
      return outcome.status === "failed"
        ? { status: "failed", reason: outcome.failure.reason, error: outcome.error, event: outcome.event }
        : compacted(outcome.event);
    },
  };
}

function consecutiveFailures(state: Readonly<SessionState>): number {
  const lastCompaction = state.recentCompactions.at(-1)?.at ?? 0;
  return state.recentFailures.filter((f) => f.at >= lastCompaction).length;
}
