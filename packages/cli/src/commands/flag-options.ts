import { ValidationError } from "@palimpsest/core";
import { Option } from "commander";
import { integerFlag } from "../flags.ts";

/**
 * An option whose value is one of `choices` (listed in the help by commander). For any other value,
 * `refuse` throws the command's own ValidationError (else a generic one), not commander's error, so
 * `--json` reports it with the VALIDATION code and exit status 2 like every other bad flag.
 */
export function choiceOption(
  flags: string,
  description: string,
  choices: readonly string[],
  refuse?: (value: string) => unknown,
): Option {
  const name = flags.split(" ")[0] ?? flags;
  return new Option(flags, description).choices(choices).argParser((value: string) => {
    if (choices.includes(value)) return value;
    refuse?.(value);
    throw new ValidationError(`${name}: unknown ${value}`, [`${name}: one of ${choices.join(", ")}`]);
  });
}

/** An option holding a whole number ≥ `min`, checked as it is parsed (ValidationError naming the flag otherwise). */
export function integerOption(flags: string, description: string, min: number): Option {
  const name = flags.split(" ")[0] ?? flags;
  return new Option(flags, description).argParser((value: string) => integerFlag(value, name, min));
}
