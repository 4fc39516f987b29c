import { NotFoundError } from "@palimpsest/core";
import { type AsOf, type ViewAsOf, viewAsOf } from "@palimpsest/projections";
import { guardRead } from "../engine/storage-guard.ts";
import type { CompactionFilter, FailureFilter } from "./audit-filters.ts";
import { type AuditProgress, type CatchUpOptions, type CatchUpResult, catchUpAudit } from "./audit-projector.ts";
import { type RebuildReport, rebuildAudit } from "./audit-rebuild.ts";
import { type AuditSource, type AuditStore, auditSource } from "./audit-source.ts";
import {
  type AuditedCompaction,
  type CompactionGroup,
  type CompactionTotals,
  compactionTotals,
  type FailureGroup,
  type FailureTotals,
  failureTotals,
  listCompactions,
} from "./compaction-queries.ts";
import { type Lineage, type LineageTree, lineage, lineageTrees } from "./lineage-queries.ts";
import { type CompactionTrail, compactionTrails, type MessageTrail, messageTrail } from "./message-queries.ts";

/** Options of the audit read models. */
export interface AuditOptions {
  /**
   * Catch the read models up with the log before answering (default true), so an answer covers
   * everything committed before the question. Off, answers are as fresh as the last catch-up.
   */
  catchUpOnRead?: boolean;
  /**
   * PostgreSQL: how long a question's catch-up waits for commits hidden behind an open transaction
   * (anywhere on the server: the barrier is cluster-wide); default AUDIT_VISIBILITY_WAIT_MS (5 s).
   */
  visibilityWaitMs?: number;
}

/**
 * Audit questions across sessions, answered in SQL from read models the audit projector keeps beside
 * the log (checkpointed; rebuildable from the log at any time): compactions by time, mode, policy,
 * summarizer model and prompt version, and trigger; tokens reclaimed; failures by class; which
 * compaction took a message out and what replaced it; lineage; and the view as of any point.
 */
export class AuditReadModels {
  readonly #source: AuditSource;
  readonly #catchUpOnRead: boolean;
  readonly #visibilityWaitMs: number | undefined;

  /**
   * Wraps a store openEventStore opened (ValidationError for another object); opening costs nothing (the
   * first question catches the models up).
   */
  constructor(store: AuditStore, options: AuditOptions = {}) {
    this.#source = auditSource(store);
    this.#catchUpOnRead = options.catchUpOnRead !== false;
    this.#visibilityWaitMs = options.visibilityWaitMs;
  }

  /** Projects every event committed since the last catch-up (in pages of `pageSize`, each one transaction). */
  catchUp(options: CatchUpOptions = {}): Promise<CatchUpResult> {
    const wait = this.#visibilityWaitMs;
    return catchUpAudit(this.#source, wait === undefined ? options : { visibilityWaitMs: wait, ...options });
  }

  /**
   * Keeps the models current in the background: catches up now and after every commit this store hears
   * (its own, and other processes' through the change feed), one catch-up at a time; wake-ups heard during
   * one collapse into one more. Errors go to `onError` (default: stderr) and the follower goes on.
   * Returns the function that stops it; its promise settles once a catch-up in flight has ended.
   */
  follow(options: { onError?: (error: unknown) => void } = {}): () => Promise<void> {
    let running: Promise<void> | undefined;
    let again = false;
    let stopped = false;
    const onError =
      options.onError ??
      ((error: unknown) => process.stderr.write(`palimpsest: audit catch-up failed: ${String(error)}\n`));
    const wake = () => {
      if (stopped) return;
      if (running !== undefined) {
        again = true;
        return;
      }
      running = (async () => {
        do {
          again = false;
          await this.catchUp().catch(onError);
        } while (again && !stopped);
        running = undefined;
      })();
    };
    const unsubscribe = this.#source.log.subscribe(wake);
    wake();
    void this.#source.log.listening()?.then(wake); // what other processes committed before the feed heard them
    return async () => {
      stopped = true;
      unsubscribe();
      await running;
    };
  }

  /** Compactions matching `filter`, oldest first. */
  async compactions(filter: CompactionFilter = {}, limit?: number): Promise<AuditedCompaction[]> {
    await this.#fresh();
    return guardRead("audit", () => listCompactions(this.#source.db, filter, limit));
  }

  /** Compaction counts and tokens reclaimed, per group (one total when `groupBy` is empty). */
  async compactionTotals(
    filter: CompactionFilter = {},
    groupBy: readonly CompactionGroup[] = [],
  ): Promise<CompactionTotals[]> {
    await this.#fresh();
    return guardRead("audit", () => compactionTotals(this.#source.db, this.#source.dialect, filter, groupBy));
  }

  /** Failed compaction attempts per group (by reason class unless told otherwise). */
  async failureTotals(
    filter: FailureFilter = {},
    groupBy: readonly FailureGroup[] = ["reason"],
  ): Promise<FailureTotals[]> {
    await this.#fresh();
    return guardRead("audit", () => failureTotals(this.#source.db, this.#source.dialect, filter, groupBy));
  }

  /** Which compaction superseded a message and what replaced it, and what a replacement stands for. */
  async message(messageId: string, sessionId?: string): Promise<MessageTrail[]> {
    await this.#fresh();
    return guardRead("audit", () => messageTrail(this.#source.db, messageId, sessionId));
  }

  /** A compaction by id: what it took out and what it put in (one per session holding that id). */
  async compaction(compactionId: string, sessionId?: string): Promise<CompactionTrail[]> {
    await this.#fresh();
    return guardRead("audit", () => compactionTrails(this.#source.db, compactionId, sessionId));
  }

  /** A session's ancestors, descendants and hand-off tip; NotFoundError for an unknown session. */
  async lineage(sessionId: string): Promise<Lineage> {
    await this.#fresh();
    return guardRead("audit", () => lineage(this.#source.db, this.#source.tenant, sessionId));
  }

  /** Every lineage tree: its root, size, depth and hand-off tip (sessions by lineage), oldest first. */
  async lineageTrees(limit?: number): Promise<LineageTree[]> {
    await this.#fresh();
    return guardRead("audit", () => lineageTrees(this.#source.db, this.#source.tenant, limit));
  }

  /** The session's active view as it stood at a seq, a time or the end of a turn (read from the log). */
  async viewAsOf(sessionId: string, at: AsOf): Promise<ViewAsOf> {
    const events = await this.#source.log.readStream(sessionId, "seq" in at ? { toSeq: Math.max(0, at.seq) } : {});
    if (events.length === 0 && (await this.#source.log.getSession(sessionId)) === undefined) {
      throw new NotFoundError("session", sessionId);
    }
    return viewAsOf(sessionId, events, at);
  }

  /** Rebuilds every read model from the log and reports whether the rebuilt state equals the live one. */
  rebuild(options: { checkOnly?: boolean; onProgress?: AuditProgress } = {}): Promise<RebuildReport> {
    return rebuildAudit(this.#source, options);
  }

  async #fresh(): Promise<void> {
    if (this.#catchUpOnRead) await this.catchUp();
  }
}
