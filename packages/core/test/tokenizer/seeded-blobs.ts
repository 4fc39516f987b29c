/** Seeded blobs for the tokenizer tests: the same text on every run. */

/** A tiny seeded PRNG (mulberry32), so the blobs are the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `length` characters drawn from `alphabet` by a PRNG seeded with `seed`. */
export function fromAlphabet(alphabet: string, length: number, seed: number): string {
  const next = prng(seed);
  const chars = [...alphabet];
  return Array.from({ length }, () => chars[Math.floor(next() * chars.length)]).join("");
}

/** The base64 alphabet. */
export const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
