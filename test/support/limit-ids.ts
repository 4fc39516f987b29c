import { ID_LIMITS, type IdKind } from "@palimpsest/core";
import { seededRandom } from "./seeded-random.ts";

/**
 * How an id's characters are drawn: `ascii` (1 byte of UTF-8 each), `bmp` (U+0800 to U+D7FF: 3 bytes for
 * one UTF-16 code unit, the most bytes a code unit takes) or `astral` (U+10000 to U+10FFFF: 4 bytes for two
 * code units). Drawn at random, so PostgreSQL cannot compress an index entry below its full size.
 */
export type IdAlphabet = "ascii" | "bmp" | "astral";

/** Every alphabet, the one that costs PostgreSQL the most bytes per code unit (bmp) first. */
export const ALPHABETS: readonly IdAlphabet[] = ["bmp", "astral", "ascii"];

const CODE_POINTS: Record<IdAlphabet, [number, number]> = {
  ascii: [0x21, 0x7e],
  bmp: [0x800, 0xd7ff],
  astral: [0x10000, 0x10ffff],
};

/**
 * A random id exactly `length` UTF-16 code units long, in `alphabet`, the same for the same `seed`
 * (an odd length in `astral` ends in one ASCII character).
 */
export function randomId(length: number, alphabet: IdAlphabet, seed: number): string {
  const random = seededRandom(seed);
  const [low, high] = CODE_POINTS[alphabet];
  let id = "";
  while (id.length < length) {
    const point = length - id.length === 1 && alphabet === "astral" ? 0x78 : low + Math.floor(random() * (high - low));
    id += String.fromCodePoint(point);
  }
  return id;
}

/** A random id of `kind` exactly at its limit (ID_LIMITS). */
export function idAtLimit(kind: IdKind, alphabet: IdAlphabet, seed: number): string {
  return randomId(ID_LIMITS[kind], alphabet, seed);
}

/** A random id of `kind` one code unit over its limit. */
export function idOverLimit(kind: IdKind, alphabet: IdAlphabet, seed: number): string {
  return randomId(ID_LIMITS[kind] + 1, alphabet, seed);
}

/** The UTF-8 size of an id, in bytes (what PostgreSQL's index entry holds). */
export const utf8Bytes = (id: string): number => Buffer.byteLength(id, "utf8");
