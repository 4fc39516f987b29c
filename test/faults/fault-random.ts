/** A seeded pseudo-random generator (mulberry32): the same seed gives the same fault schedule. */
export class FaultRandom {
  #state: number;

  /** Starts the sequence of `seed` (any integer). */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One of `items` (non-empty). */
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  /** One of `choices` by weight. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    let r = this.next() * choices.reduce((n, [, w]) => n + w, 0);
    for (const [value, weight] of choices) {
      r -= weight;
      if (r < 0) return value;
    }
    return (choices.at(-1) as readonly [T, number])[0];
  }
}
