import { type DomainEvent, type KnownKeys, type LogKey, logKeysOf, NO_KEYS } from "@palimpsest/core";

/** How many of the most recent log keys a handle remembers having seen written. */
const REMEMBERED_KEYS = 256;

/**
 * The log keys (logKeysOf) of the events a session handle folded (its own appends, and others' it read),
 * the most recent REMEMBERED_KEYS. A key in the log stays there, so the decider may take these as known
 * without asking the log: a completeTurn after the appends that named its turn is decided on the state
 * alone, in one round trip. Keys not seen are still taken as new, and the append's fresh keys make the
 * store check them (a turn another writer completed first is refused, then decided with the log's keys).
 */
export class SeenKeys {
  readonly #keys = new Set<LogKey>();

  /** Notes the keys `events` wrote. */
  note(events: Iterable<Pick<DomainEvent, "type" | "data">>): void {
    for (const event of events) {
      for (const key of logKeysOf(event)) {
        this.#keys.delete(key); // added again as the newest
        this.#keys.add(key);
      }
    }
    for (const key of this.#keys) {
      if (this.#keys.size <= REMEMBERED_KEYS) break;
      this.#keys.delete(key);
    }
  }

  /** Which of `keys` this handle saw written. */
  knownAmong(keys: readonly LogKey[]): KnownKeys {
    const known = keys.filter((key) => this.#keys.has(key));
    return known.length === 0 ? NO_KEYS : new Set(known);
  }
}
