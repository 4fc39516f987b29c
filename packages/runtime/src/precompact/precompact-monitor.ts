import type { CandidateMiss } from "@palimpsest/core";
import { type Observable, Subject } from "rxjs";

/** How a background job ended: a candidate stored, nothing to do, or work thrown away. */
export type JobOutcome = "stored" | "fresh" | "skipped" | "discarded" | "cancelled" | "failed";

/** Why a compaction could not use a candidate (the key's reasons, none stored, the delta failing, or another compaction moving the view first). */
export type PrecompactMiss = CandidateMiss | "no-candidate" | "delta-failed" | "view-moved";

/** One observation (no transcript content): a job's end, a candidate used, or a candidate missed. */
export type PrecompactEvent =
  | { type: "job"; sessionId: string; outcome: JobOutcome; reason: string; summaryMs: number; wastedMs: number }
  | {
      type: "hit";
      sessionId: string;
      /** How long the compaction with the candidate took, start to commit. */
      commitMs: number;
      /** How long a cold compaction of the same view takes (measured when asked, else estimated). */
      coldMs: number;
      coldMeasured: boolean;
      savedMs: number;
      candidateAgeMs: number;
      /** Messages after the candidate's span the hit summarized on the turn (0 when it left them verbatim). */
      deltaMessages: number;
      /** Messages after the candidate's span the hit left verbatim, the view having room without them. */
      keptVerbatim: number;
    }
  | { type: "miss"; sessionId: string; reason: PrecompactMiss; wastedMs: number };

/** Running totals of the events. */
export interface PrecompactStats {
  hits: number;
  misses: Partial<Record<PrecompactMiss, number>>;
  jobs: Partial<Record<JobOutcome, number>>;
  /** Synchronous summarization time the hits saved, in total. */
  savedMs: number;
  /** Candidate age at use: total (divide by hits for the mean) and the oldest. */
  candidateAgeMs: { total: number; max: number };
  /** Background summarization time that never reached a commit (discarded, cancelled, failed, replaced, missed). */
  wastedMs: number;
}

/** Collects pre-compaction observations: an rxjs stream of events and their running totals. */
export class PrecompactMonitor {
  readonly #events = new Subject<PrecompactEvent>();
  readonly #stats: PrecompactStats = {
    hits: 0,
    misses: {},
    jobs: {},
    savedMs: 0,
    candidateAgeMs: { total: 0, max: 0 },
    wastedMs: 0,
  };

  /** Every observation as it happens. */
  get events$(): Observable<PrecompactEvent> {
    return this.#events.asObservable();
  }

  /** Adds one observation to the totals and emits it. */
  record(event: PrecompactEvent): void {
    const s = this.#stats;
    if (event.type === "job") {
      s.jobs[event.outcome] = (s.jobs[event.outcome] ?? 0) + 1;
      s.wastedMs += event.wastedMs;
    } else if (event.type === "miss") {
      s.misses[event.reason] = (s.misses[event.reason] ?? 0) + 1;
      s.wastedMs += event.wastedMs;
    } else {
      s.hits += 1;
      s.savedMs += event.savedMs;
      s.candidateAgeMs.total += event.candidateAgeMs;
      s.candidateAgeMs.max = Math.max(s.candidateAgeMs.max, event.candidateAgeMs);
    }
    this.#events.next(event);
  }

  /** A copy of the running totals. */
  stats(): PrecompactStats {
    return structuredClone(this.#stats);
  }

  /** Completes the event stream. */
  complete(): void {
    this.#events.complete();
  }
}
