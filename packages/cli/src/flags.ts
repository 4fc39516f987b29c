import { InvalidArgumentError, Option } from "commander";

/**
 * commander's parser for a whole number from `min` to `max`: anything else is a usage error that names
 * the flag and the range (code VALIDATION, exit 2, see main.ts).
 */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`It must be a whole number ${range}.`);
    }
    return n;
  };
}

/** commander's parser for an amount of US dollars: a finite number, 0 or more (else a usage error). */
export function dollars(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0) {
    throw new InvalidArgumentError("It must be an amount of US dollars, 0 or more (e.g. 0.01).");
  }
  return n;
}

/** An option taking a whole number from `min` to `max` (its value a number). */
export function integerOption(flags: string, description: string, min: number, max?: number): Option {
  return new Option(flags, description).argParser(wholeNumber(min, max));
}

/** An option taking a comma-separated list, each item one of `allowed` (its value an array, `byDefault` if absent). */
export function listOption<T extends string>(
  flags: string,
  description: string,
  allowed: readonly T[],
  byDefault: readonly T[],
): Option {
  return new Option(flags, `${description} (comma-separated: ${allowed.join(", ")})`)
    .default(byDefault, byDefault.length === 0 ? '""' : byDefault.join(","))
    .argParser((value: string) => {
      const items = value
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
      const unknown = items.filter((i) => !allowed.includes(i as T));
      if (unknown.length > 0) {
        throw new InvalidArgumentError(`Unknown ${unknown.join(", ")}: allowed are ${allowed.join(", ")}.`);
      }
      return items as T[];
    });
}
