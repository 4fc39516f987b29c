import type { ChangeFeed, ChangeListener, StoreChange } from "@palimpsest/core";

/** Starts hearing commits made elsewhere (other processes), passing each to `deliver`; returns its stopper. */
export type ChangeSource = (deliver: (change: StoreChange) => void) => () => Promise<void>;

/**
 * The fan-out of committed appends: this store's own, told at once, plus, when a source is given, those
 * the source hears, which runs only while there is a listener. Listeners cannot fail the append.
 */
export class ChangeNotifier implements ChangeFeed {
  readonly #listeners = new Set<ChangeListener>();
  readonly #source: ChangeSource | undefined;
  #stopSource: (() => Promise<void>) | undefined;
  #closed = false;

  constructor(source?: ChangeSource) {
    this.#source = source;
  }

  /** Registers a listener (starting the source for the first); returns the function that removes it. */
  subscribe(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    if (this.#source !== undefined && this.#stopSource === undefined && !this.#closed) {
      this.#stopSource = this.#source((change) => this.notify(change));
    }
    return () => {
      if (this.#listeners.delete(listener) && this.#listeners.size === 0) void this.#stop();
    };
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
    return stop === undefined ? Promise.resolve() : stop();
  }
}
