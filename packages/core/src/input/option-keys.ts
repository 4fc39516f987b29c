import { ValidationError } from "../errors.ts";

/**
 * Refuses an options object with keys `known` does not list: ValidationError naming `fn`, each unknown
 * key and the ones it takes (a typo in an option must not be ignored). `known` is typed by the caller as
 * `{ [K in keyof Required<Options>]: true }`, so the compiler keeps it complete. `base`: where the options
 * sit in another's (`compaction`), which the paths name.
 */
export function checkOptionKeys(fn: string, options: object, known: object, base = ""): void {
  const unknown = Object.keys(options).filter((key) => !Object.hasOwn(known, key));
  if (unknown.length === 0) return;
  const at = (key: string) => (base === "" ? key : `${base}.${key}`);
  throw new ValidationError(
    `unknown ${fn} option${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`,
    unknown.map((key) => ({ path: at(key), code: "custom", message: `not one of ${Object.keys(known).join(", ")}` })),
    { path: at(unknown[0] ?? "") },
  );
}
