import { ValidationError } from "@palimpsest/core";

/** A whole-number flag value from `min` to `max`; ValidationError naming the flag otherwise. */
export function integerFlag(value: string, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new ValidationError(`${flag} must be a whole number ${range}`, [`${flag}: ${value}`]);
  }
  return n;
}

/** A comma-separated list flag, each item one of `allowed`; ValidationError naming the others. */
export function listFlag<T extends string>(value: string, flag: string, allowed: readonly T[]): T[] {
  const items = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const unknown = items.filter((i) => !allowed.includes(i as T));
  if (unknown.length > 0) {
    throw new ValidationError(`${flag}: unknown ${unknown.join(", ")}`, [
      `${flag}: one or more of ${allowed.join(", ")}`,
    ]);
  }
  return items as T[];
}
