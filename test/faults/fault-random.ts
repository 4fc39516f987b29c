import { seededRandom } from "../support/seeded-random.ts";

/** seededRandom's sequence with the draws fault schedules need: the same seed, the same schedule. */
export class FaultRandom {
  readonly #random: () => number;

  /** Starts the sequence of `seed` (any integer). */
  constructor(seed: number) {
    this.#random = seededRandom(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.#random();
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
