import {
  type CandidateStore,
  checkOptions,
  definedFields,
  isPalimpsestError,
  type OptionShape,
  OptionValues,
  resolveMicroSettings,
  softThreshold,
} from "@palimpsest/core";
import { debounceTime, filter, groupBy, mergeMap, Observable, Subject, type Subscription } from "rxjs";
import { COMPACT_OPTION_SHAPE } from "../compaction/compact.ts";
import { type CompactionSettings, resolveCompaction } from "../compaction/compaction-settings.ts";
import type { Session } from "../runtime/session.ts";
import {
  type CompactWithCandidateOptions,
  compactWithCandidate,
  type PrecompactOutcome,
} from "./compact-with-candidate.ts";
import { type JobReport, type PrecompactRequest, runPrecompactJob } from "./precompact-job.ts";
import { type PrecompactEvent, PrecompactMonitor, type PrecompactStats } from "./precompact-monitor.ts";
import { type PrecompactSettings, resolvePrecompactSettings } from "./precompact-settings.ts";

/** The options of a scheduler's compact: a compaction's, and how it may use the session's candidate. */
export type PrecompactCompactOptions = Omit<CompactWithCandidateOptions, "candidates" | "monitor">;

/** Every key of PrecompactCompactOptions with its value's schema (checkOptions). */
const PRECOMPACT_COMPACT_OPTION_SHAPE: OptionShape<PrecompactCompactOptions> = {
  ...COMPACT_OPTION_SHAPE,
  enabled: OptionValues.flag,
  systemPrompt: OptionValues.text,
  keepDelta: OptionValues.flag,
  measureCold: OptionValues.flag,
};

/** What a scheduler needs: the candidate store, the runtime's compaction settings, and its own. */
export interface PrecompactSchedulerDeps {
  candidates: CandidateStore;
  compaction?: CompactionSettings;
  precompact?: Partial<PrecompactSettings>;
  /** Where observations go (default: a monitor of its own). */
  monitor?: PrecompactMonitor;
}

/**
 * Background pre-compaction on rxjs. After a completed turn above the soft threshold, a session's job
 * starts once its turns have been quiet for `debounceMs`; at most one job per session is queued or
 * running (a trigger meanwhile is dropped: the next turn asks again, and a job is never restarted, so
 * busy sessions cannot livelock it), and at most `concurrency` run across sessions. Jobs only propose.
 */
export class PrecompactionScheduler {
  readonly monitor: PrecompactMonitor;
  readonly #deps: PrecompactSchedulerDeps;
  readonly #settings: PrecompactSettings;
  readonly #triggers = new Subject<PrecompactRequest>();
  readonly #changed = new Subject<void>();
  readonly #waiting = new Set<string>();
  readonly #running = new Map<string, AbortController>();
  readonly #disabled = new Set<string>();
  readonly #subscription: Subscription;
  #disposed = false;

  /** Starts the pipeline; call dispose() to stop it. */
  constructor(deps: PrecompactSchedulerDeps) {
    this.#deps = deps;
    this.#settings = resolvePrecompactSettings(deps.precompact);
    this.monitor = deps.monitor ?? new PrecompactMonitor();
    const quiet = this.#settings.debounceMs;
    this.#subscription = this.#triggers
      .pipe(
        groupBy((r) => r.session.id, { duration: (group) => group.pipe(debounceTime(quiet)) }),
        mergeMap((group) => group.pipe(debounceTime(quiet))),
        filter((r) => this.#admit(r.session.id)),
        mergeMap((r) => this.#job(r), this.#settings.concurrency),
      )
      .subscribe((report) => this.monitor.record({ type: "job", ...report }));
  }

  /** Every observation (jobs, hits, misses) as it happens. */
  get events$(): Observable<PrecompactEvent> {
    return this.monitor.events$;
  }

  /** Running totals: hits, misses by reason, jobs by outcome, time saved, candidate age, wasted work. */
  stats(): PrecompactStats {
    return this.monitor.stats();
  }

  /**
   * Call after a completed turn (and after its compaction checks): schedules a job when pre-compaction is
   * on for the session, micro-compaction is not, and the view is above the soft threshold.
   */
  onTurnCompleted(session: Session): void {
    if (!this.#enabledFor(session) || this.#microActive(session)) return;
    const state = session.state;
    const settings = resolveCompaction(this.#compaction, state, () => 0); // the threshold only: no policy runs
    const soft = softThreshold({ ...settings, softRatio: this.#settings.softRatio });
    if (state.liveTokens < soft) return;
    this.#waiting.add(session.id);
    this.#triggers.next({ session, stableThroughSeq: state.lastSeq });
  }

  /**
   * A compaction using the session's candidate (see compactWithCandidate), observed by this scheduler's
   * monitor. Options it does not take, or a value of the wrong kind, are VALIDATION before anything is read.
   */
  async compact(session: Session, options: PrecompactCompactOptions = {}): Promise<PrecompactOutcome> {
    checkOptions("precompaction.compact", options, PRECOMPACT_COMPACT_OPTION_SHAPE);
    const systemPrompt = this.#settings.systemPrompt?.(session.id);
    return compactWithCandidate(session, {
      ...this.#compaction,
      ...options,
      candidates: this.#deps.candidates,
      monitor: this.monitor,
      keepDelta: options.keepDelta ?? this.#settings.keepDelta,
      enabled: options.enabled !== false && this.#enabledFor(session),
      ...definedFields({ systemPrompt }),
    });
  }

  /**
   * The per-session off switch in memory (a session started with `settings: { precompact: false }` is
   * off for good); switching off also cancels the session's running job.
   */
  setSessionEnabled(sessionId: string, enabled: boolean): void {
    if (enabled) this.#disabled.delete(sessionId);
    else {
      this.#disabled.add(sessionId);
      this.cancel(sessionId);
    }
  }

  /** Aborts the session's running job, if any: it ends as "cancelled" and stores nothing. */
  cancel(sessionId: string): void {
    this.#running.get(sessionId)?.abort();
  }

  /** Resolves once no job is waiting out its debounce, queued or running. */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => this.#waiting.size === 0 && this.#running.size === 0;
      if (check()) return resolve();
      const sub = this.#changed.subscribe(() => {
        if (!check()) return;
        sub.unsubscribe();
        resolve();
      });
    });
  }

  /** Stops scheduling, aborts running jobs and completes the event stream. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const controller of this.#running.values()) controller.abort();
    this.#subscription.unsubscribe();
    this.#waiting.clear();
    this.#running.clear();
    this.#changed.next();
    this.#triggers.complete();
    this.monitor.complete();
  }

  get #compaction(): CompactionSettings {
    return this.#deps.compaction ?? {};
  }

  #enabledFor(session: Session): boolean {
    return (
      !this.#disposed &&
      this.#settings.enabled &&
      !this.#disabled.has(session.id) &&
      session.state.started?.settings?.precompact !== false &&
      session.state.handedOffTo === undefined
    );
  }

  /** Micro passes rewrite the start of the middle every turn, which would invalidate every candidate. */
  #microActive(session: Session): boolean {
    const micro = this.#compaction.micro;
    if (micro === undefined || !resolveMicroSettings(micro).enabled) return false;
    return session.state.started?.settings?.microCompact !== false;
  }

  /** Lets a debounced request through unless the session already has a job queued or running. */
  #admit(sessionId: string): boolean {
    this.#waiting.delete(sessionId);
    const admitted = !this.#running.has(sessionId) && !this.#disabled.has(sessionId);
    if (admitted) this.#running.set(sessionId, new AbortController());
    this.#changed.next();
    return admitted;
  }

  /** The job as an observable: its report (a throwing job reports "failed"); the session's slot is freed when it ends. */
  #job(request: PrecompactRequest): Observable<JobReport> {
    const id = request.session.id;
    return new Observable<JobReport>((subscriber) => {
      const controller = this.#running.get(id) ?? new AbortController();
      const context = { candidates: this.#deps.candidates, compaction: this.#compaction, settings: this.#settings };
      runPrecompactJob(request, context, controller.signal)
        .catch((error: unknown): JobReport => {
          const reason = isPalimpsestError(error) ? error.code : "unexpected";
          return { sessionId: id, outcome: "failed", reason, summaryMs: 0, wastedMs: 0 };
        })
        .then((report) => subscriber.next(report))
        .finally(() => {
          if (this.#running.get(id) === controller) this.#running.delete(id);
          subscriber.complete();
          this.#changed.next();
        });
      return () => controller.abort();
    });
  }
}
