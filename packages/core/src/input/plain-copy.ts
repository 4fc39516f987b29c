import { isPlainRecord, setOwn } from "./own-keys.ts";

/**
 * A copy of `value`'s plain objects and arrays, all the way down, own `__proto__` keys included (setOwn);
 * primitives and any other object (a Date, a class instance) are kept as they are. What a schema that
 * passes opaque JSON through gives back, so its output never shares an object with the caller's input.
 * `value` must not be circular (check it first: withinJsonDepth).
 */
export function plainCopy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = plainCopy(value[i]);
    return out;
  }
  if (!isPlainRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, plainCopy(value[key]));
  return out;
}
