import { InvalidArgumentError, Option } from "commander";

/**
 * An option holding a whole number ≥ `min`, checked as it is parsed: anything else is commander's
 * InvalidArgumentError, reported as a usage error naming the option and its value.
 */
export function integerOption(flags: string, description: string, min: number): Option {
  return new Option(flags, description).argParser((value: string) => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isInteger(n) || n < min) {
      throw new InvalidArgumentError(`It must be a whole number ≥ ${min}.`);
    }
    return n;
  });
}
