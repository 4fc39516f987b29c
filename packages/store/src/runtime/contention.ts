import { ConcurrencyConflict } from "@palimpsest/core";

/** How long, by default, a write goes on re-reading and deciding again while other writers move its session. */
export const DEFAULT_CONTENTION_TIMEOUT_MS = 30_000;

/** The first pause after a lost race, and the longest (each doubles, and a random part of it is cut off). */
const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 10;

/**
 * The one retry policy of every write through a Session: after a race lost to another writer, a pause
 * (exponential, jittered, so writers that collided do not collide again in step), then the caller re-reads
 * and decides again; bounded by time, not by a count of attempts that a busy session exhausts. The time a
 * write spends in its own planning (a summary being written) is not contention and does not count.
 */
export class Contention {
  readonly #timeoutMs: number;
  readonly #started = performance.now();
  #planningMs = 0;
  #attempts = 1;
  #pause = FIRST_PAUSE_MS;

  /** A write's contention budget, from now: `timeoutMs` of lost races and pauses. */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** Runs the write's own planning; its time is not spent from the budget. */
  async planning<T>(plan: () => T | Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await plan();
    } finally {
      this.#planningMs += performance.now() - start;
    }
  }

  /** Whether the budget is spent: the write should give up rather than decide again. */
  get spent(): boolean {
    return this.#spentMs() >= this.#timeoutMs;
  }

  /**
   * After a race lost with `conflict`: waits a jittered pause and returns, so the caller decides again;
   * once the budget is spent, throws a `contention` ConcurrencyConflict (retryable) with `conflict` as its cause.
   */
  async lost(conflict: ConcurrencyConflict): Promise<void> {
    const spent = this.#spentMs();
    if (spent >= this.#timeoutMs) {
      const { sessionId, subject, expected, actual } = conflict.details;
      throw new ConcurrencyConflict(sessionId, subject, expected, actual, {
        cause: conflict,
        contention: { attempts: this.#attempts, waitedMs: spent },
      });
    }
    await this.pause();
  }

  /** Waits the next pause: growing, jittered, never past the budget. */
  async pause(): Promise<void> {
    this.#attempts++;
    const pause = Math.max(0, Math.min(this.#timeoutMs - this.#spentMs(), this.#pause * (0.5 + Math.random() / 2)));
    this.#pause = Math.min(LONGEST_PAUSE_MS, this.#pause * 2);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }

  #spentMs(): number {
    return performance.now() - this.#started - this.#planningMs;
  }
}
