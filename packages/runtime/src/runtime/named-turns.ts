import { type DomainEvent, type KnownKeys, type LogKey, NO_KEYS, turnKey } from "@palimpsest/core";

/** How many of the most recent turns a handle remembers having seen named. */
const REMEMBERED_TURNS = 64;

/**
 * The turns the events a session handle folded named (its own appends, and others' it read), the most
 * recent REMEMBERED_TURNS, as their `turn:` log keys. A completeTurn of one is then decided on the state
 * and these keys, without asking the log: a turn named stays named, so the only answer this lets the
 * decider give is the acceptance the log's keys would give, and what could refuse it is checked by the
 * store (the `turn-done:` key is a fresh key of the append; an erasure moved the session's version).
 * Only these: a key whose presence makes the decider refuse or write nothing (a completed turn, an id
 * taken) is always the log's to say, as an erasure may have taken it away since.
 */
export class NamedTurns {
  readonly #keys = new Set<LogKey>();

  /** Notes the turns `events` name. */
  note(events: Iterable<Pick<DomainEvent, "type" | "data">>): void {
    for (const event of events) {
      if (event.type !== "message.appended") continue;
      const { turnId } = event.data as { turnId?: string };
      if (turnId === undefined) continue;
      const key = turnKey(turnId);
      this.#keys.delete(key); // added again as the newest
      this.#keys.add(key);
      if (this.#keys.size > REMEMBERED_TURNS) this.#keys.delete(this.#keys.values().next().value as LogKey);
    }
  }

  /** Which of `keys` are turns this handle saw named. */
  knownAmong(keys: readonly LogKey[]): KnownKeys {
    const known = keys.filter((key) => this.#keys.has(key));
    return known.length === 0 ? NO_KEYS : new Set(known);
  }
}
