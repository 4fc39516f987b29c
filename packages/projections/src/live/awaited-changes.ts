import type { StoreChange, StoredEvent } from "@palimpsest/core";

/** Sessions whose last read seq a global watcher remembers, so late wake-ups for events it read are ignored. */
const MAX_REMEMBERED_SESSIONS = 4096;

/** How long a wake-up is waited for before it is given up (its events are then read at the next wake-up). */
const MAX_WAIT_MS = 600_000;

/**
 * Wake-ups a global watcher heard whose events it has not read yet. On PostgreSQL a commit can stay hidden
 * behind the visibility barrier (an older transaction still open) after its notification arrived; the
 * watcher re-reads, backing off, while this holds anything, instead of stalling until the next append.
 */
export class AwaitedChanges {
  readonly #awaited = new Map<string, { version: number; since: number }>();
  readonly #lastRead = new Map<string, number>();

  /** Records a wake-up, unless the watcher already read up to its version. */
  heard(change: StoreChange): void {
    if ((this.#lastRead.get(change.sessionId) ?? 0) >= change.version) return;
    const known = this.#awaited.get(change.sessionId);
    this.#awaited.set(change.sessionId, {
      version: Math.max(change.version, known?.version ?? 0),
      since: known?.since ?? Date.now(),
    });
  }

  /** Records events the watcher emitted, settling the wake-ups they answer. */
  read(events: readonly StoredEvent[]): void {
    for (const event of events) {
      // Global order is commit-visibility order: a session's seq N+1 can come before its seq N.
      const seq = Math.max(event.seq, this.#lastRead.get(event.sessionId) ?? 0);
      this.#lastRead.delete(event.sessionId);
      this.#lastRead.set(event.sessionId, seq);
      const awaited = this.#awaited.get(event.sessionId);
      if (awaited !== undefined && awaited.version <= seq) this.#awaited.delete(event.sessionId);
    }
    for (const sessionId of this.#lastRead.keys()) {
      if (this.#lastRead.size <= MAX_REMEMBERED_SESSIONS) break;
      this.#lastRead.delete(sessionId);
    }
  }

  /** True while some wake-up is still unanswered (those older than MAX_WAIT_MS are dropped). */
  waiting(): boolean {
    const now = Date.now();
    for (const [sessionId, { since }] of this.#awaited) {
      if (now - since > MAX_WAIT_MS) this.#awaited.delete(sessionId);
    }
    return this.#awaited.size > 0;
  }
}
