/**
 * Pauses between the attempts of one wait: each pause is the last doubled (from `firstMs`, at most
 * `longestMs`), with a random part of it cut off so waiters do not retry in step. `pause(leftMs)` sleeps,
 * never past what is left of the caller's bound.
 */
export function backoff(firstMs: number, longestMs: number): { pause(leftMs: number): Promise<void> } {
  let next = firstMs;
  return {
    async pause(leftMs) {
      const ms = Math.max(0, Math.min(leftMs, next * (0.5 + Math.random() / 2)));
      next = Math.min(longestMs, next * 2);
      await new Promise((resolve) => setTimeout(resolve, ms));
    },
  };
}
