import type { ImportedSession } from "../importers/types.ts";
import type { Message } from "../messages/message.ts";
import { FidelityAccumulator } from "./fidelity-accumulator.ts";
import type { CompactionFidelity, FidelitySummary, RequestRecall } from "./fidelity-figures.ts";
import type { PerKind } from "./fidelity-kinds.ts";
import { type FidelityEntry, FidelityTracker } from "./fidelity-tracker.ts";

/** One of the source's own compactions (Claude Code's), by the request index it came before. */
export interface SourceCompactionFidelity extends CompactionFidelity {
  requestIndex: number;
  trigger: "auto" | "manual";
}

/** The fidelity of a transcript's own compactions and the prompts it actually sent. */
export interface SourceFidelity {
  summary: FidelitySummary;
  compactions: SourceCompactionFidelity[];
  /** Each request's recall, in order (to pool several sessions with a FidelityAccumulator). */
  recalls: RequestRecall[];
  /** Distinct items the session held by its end. */
  held: PerKind<number>;
}

/**
 * The fidelity of what the source agent itself did: each request's prompt is every message since its last
 * compaction, behind that compaction's summary (Claude Code drops the whole history and keeps its summary);
 * each compaction is measured on what it dropped. `tokens` sizes a message (the summary and the removed
 * messages alike). A transcript without compactions has recall 1 throughout.
 */
export function sourceFidelity(session: ImportedSession, tokens: (message: Message) => number): SourceFidelity {
  const tracker = new FidelityTracker();
  const accumulator = new FidelityAccumulator();
  const compactions: SourceCompactionFidelity[] = [];
  const recalls: RequestRecall[] = [];
  let prompt: FidelityEntry[] = [];
  for (const item of session.items) {
    if (item.kind === "compaction") {
      prompt = [{ message: item.summary, tokens: tokens(item.summary), placedBy: "source-compaction" }];
      const measured = tracker.compaction(prompt);
      accumulator.recordCompaction(measured);
      compactions.push({ ...measured, requestIndex: recalls.length, trigger: item.trigger });
      continue;
    }
    if (item.message.role === "assistant") {
      const recall = tracker.request(prompt);
      recalls.push(recall);
      accumulator.recordRequest(recall);
    }
    const entry = { message: item.message, tokens: tokens(item.message) };
    prompt.push(entry);
    tracker.append(entry);
  }
  const held = tracker.held();
  accumulator.recordHeld(held);
  return { summary: accumulator.summary(), compactions, recalls, held };
}
