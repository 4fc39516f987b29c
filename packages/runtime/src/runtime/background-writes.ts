import { setImmediate as nextTurn } from "node:timers/promises";

/**
 * Writes the runtime makes after the call that caused them has returned (a session's snapshot, a cache):
 * each starts on a later turn of the event loop, so the append that made it due does not wait for it, and
 * writes of one key run one after another, in order. `settled` waits for those started so far; `close`
 * (the runtime's, before it closes the store) takes no more and waits for them all. A write reports its own
 * failures (saveSnapshot's onError): one that throws anyway is dropped, never an unhandled rejection.
 */
export class BackgroundWrites {
  readonly #chains = new Map<string, Promise<void>>();
  #closed = false;

  /**
   * Queues `write` behind the key's earlier writes, to start once the current turn of the event loop ends;
   * after close, drops it (a write of a cache, made due by an append still in flight as the runtime closed).
   */
  run(key: string, write: () => Promise<void>): void {
    if (this.#closed) return;
    const next = (this.#chains.get(key) ?? Promise.resolve())
      .then(() => nextTurn())
      .then(write)
      .catch(() => {})
      .finally(() => {
        if (this.#chains.get(key) === next) this.#chains.delete(key);
      });
    this.#chains.set(key, next);
  }

  /** Resolves once every write queued before the call has finished. */
  async settled(): Promise<void> {
    await Promise.all(this.#chains.values());
  }

  /** Takes no more writes, and resolves once those queued have finished. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.settled();
  }
}
