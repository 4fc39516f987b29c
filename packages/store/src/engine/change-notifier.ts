import type { ChangeFeed, ChangeListener, StoreChange } from "@palimpsest/core";

/** An in-process fan-out of committed appends; listeners run after commit and cannot fail the append. */
export class ChangeNotifier implements ChangeFeed {
  readonly #listeners = new Set<ChangeListener>();

  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
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
}
