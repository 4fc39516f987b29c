import type { ChangeFeed, ChangeListener, StoreChange } from "@palimpsest/core";

/**
 * Starts hearing commits made elsewhere (other processes), passing each to `deliver`, and calls `live` once
 * every commit from then on is heard (after delivering any it caught up on); returns its stopper.
 */
export type ChangeSource = (deliver: (change: StoreChange) => void, live: () => void) => () => Promise<void>;

/**
 * The fan-out of committed appends: this store's own, told at once, plus, when a source is given, those
 * the source hears, which runs only while there is a listener. Listeners cannot fail the append.
 */
export class ChangeNotifier implements ChangeFeed {
  readonly #listeners = new Set<ChangeListener>();
  readonly #source: ChangeSource | undefined;
  #stopSource: (() => Promise<void>) | undefined;
  /** While the running source is not live yet: the promise `listening` hands out, and its resolver. */
  #pending: { promise: Promise<void>; resolve: () => void } | undefined;
  #closed = false;

  constructor(source?: ChangeSource) {
    this.#source = source;
  }

  /** Registers a listener (starting the source for the first); returns the function that removes it. */
  subscribe(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    if (this.#source !== undefined && this.#stopSource === undefined && !this.#closed) {
      let resolve = () => {};
      const pending = { promise: new Promise<void>((done) => (resolve = done)), resolve: () => resolve() };
      this.#pending = pending;
      this.#stopSource = this.#source(
        (change) => this.notify(change),
        () => {
          if (this.#pending === pending) this.#pending = undefined;
          pending.resolve();
        },
      );
    }
    return () => {
      if (this.#listeners.delete(listener) && this.#listeners.size === 0) void this.#stop();
    };
  }

  /** While the started source is not live yet, when it will be; else undefined. */
  listening(): Promise<void> | undefined {
    return this.#pending?.promise;
  }

  /** Tells every listener; a listener that throws is reported on stderr, the others still run. */
  notify(change: StoreChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        console.error("palimpsest: a change listener threw", error);
      }
    }
  }

  /** Stops the source for good; listeners keep hearing this store's own appends only. */
  close(): Promise<void> {
    this.#closed = true;
    return this.#stop();
  }

  #stop(): Promise<void> {
    const stop = this.#stopSource;
    this.#stopSource = undefined;
    this.#pending?.resolve(); // nothing is heard any more: a waiting reader has nothing left to wait for
    this.#pending = undefined;
    return stop === undefined ? Promise.resolve() : stop();
  }
}
