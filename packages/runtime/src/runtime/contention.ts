import { backoff, ConcurrencyConflict } from "@palimpsest/core";

/** How long, by default, a write goes on re-reading and deciding again while other writers move its session. */
export const DEFAULT_CONTENTION_TIMEOUT_MS = 30_000;

/** The first pause after a lost race, and the longest (each doubles, and a random part of it is cut off). */
const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 10;

/**
 * Appends a write makes in all while each one's connection drops under it (the first and two more, as the
 * store's own attempts at a read).
 */
const DROPPED_APPENDS = 3;

/**
 * The one retry policy of every write: after a race lost to another writer, a pause (growing, jittered,
 * so writers that collided do not collide again in step), then the caller re-reads and decides again;
 * bounded by time, not by a count of attempts that a busy session exhausts. The write's first plan (a
 * summary being written before anything could be lost) does not count; everything after it does: each
 * re-read, each plan made again, each pause. An append whose connection dropped under it is made again
 * too, a bounded number of times (dropped).
 */
export class Contention {
  readonly #timeoutMs: number;
  readonly #started = performance.now();
  #firstPlanMs: number | undefined;
  #attempts = 1;
  readonly #pauses = backoff(FIRST_PAUSE_MS, LONGEST_PAUSE_MS);
  #dropped = 0;

  /** A write's contention budget, from now: `timeoutMs` beyond its first plan. */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** Runs a plan of the write; the first one's time is not spent from the budget. */
  async planning<T>(plan: () => T | Promise<T>): Promise<T> {
    if (this.#firstPlanMs !== undefined) return plan();
    const start = performance.now();
    try {
      return await plan();
    } finally {
      this.#firstPlanMs = performance.now() - start;
    }
  }

  /** Whether the budget is spent: the write should give up rather than decide again. */
  get spent(): boolean {
    return this.#spentMs() >= this.#timeoutMs;
  }

  /**
   * After a race lost (`conflict`, or the log found moved past `expected` to `actual`): waits a jittered
   * pause and returns, so the caller decides again; once the budget is spent, throws a `contention`
   * ConcurrencyConflict (retryable) with what was lost as its cause.
   */
  async lost(sessionId: string, expected: number, actual: number, cause: unknown): Promise<void> {
    const spent = this.#spentMs();
    if (spent >= this.#timeoutMs) {
      const subject = cause instanceof ConcurrencyConflict ? cause.details.subject : "stream-version";
      throw new ConcurrencyConflict(sessionId, subject, expected, actual, {
        cause,
        contention: { attempts: this.#attempts, waitedMs: spent },
      });
    }
    this.#attempts++;
    await this.#pauses.pause(this.#timeoutMs - spent);
  }

  /**
   * After an append whose connection dropped (`error`, a retryable STORAGE failure), to be made again (a
   * session's once the log shows it did not land; an import's under its key, which replays one that did):
   * waits a jittered pause and returns, so the caller appends again; throws `error` once DROPPED_APPENDS
   * appends have failed so (the server stays unreachable: the caller's to retry).
   */
  async dropped(error: unknown): Promise<void> {
    if (++this.#dropped >= DROPPED_APPENDS) throw error;
    await this.#pauses.pause(Number.POSITIVE_INFINITY);
  }

  #spentMs(): number {
    return performance.now() - this.#started - (this.#firstPlanMs ?? 0);
  }
}
