import { z } from "zod";
import { ValidationError } from "../errors.ts";
import { isObject } from "./json-object.ts";
import { checkOptionKeys } from "./option-keys.ts";
import { parseInput } from "./parse-input.ts";

/**
 * A schema for every key an options object may have: typed `OptionShape<Options>`, so the compiler keeps
 * it complete and exact. A key whose value is `undefined` is taken as absent.
 */
export type OptionShape<O> = { readonly [K in keyof Required<O>]: z.ZodType };

/** The schemas of the values options commonly take, for OptionShapes. */
export const OptionValues = {
  /** A string (ids, names, URLs: the option's own code checks what it holds). */
  text: z.string(),
  /** true or false. */
  flag: z.boolean(),
  /** A duration or a pause in ms: a finite number, zero or more. */
  ms: z.number().finite().nonnegative(),
  /** A count or a size: a whole number, one or more. */
  count: z.number().int().positive(),
  /** A number of tokens: a whole number, zero or more. */
  tokens: z.number().int().nonnegative(),
  /** A callback. */
  fn: z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", "expected a function"),
  /** An object the option's own code reads further (a keyring, a runtime, a profile). */
  object: z.custom<object>(isObject, "expected an object"),
  /** Any value: the option's own code checks it, with a message of its own. */
  any: z.unknown(),
  /** One of the strings given. */
  oneOf: <const T extends readonly [string, ...string[]]>(...values: T) => z.enum(values),
} as const;

/** Each shape's schema, built once: options are checked on every call of some hot paths (an append's). */
const schemas = new WeakMap<object, z.ZodType>();

/** The shape of each nested options schema (optionsSchema's), so checkOptions names its unknown keys. */
const shapes = new WeakMap<z.ZodType, object>();

/**
 * The schema of an options object nested in another's (`compaction` in an opener's options): every key
 * optional, an unknown key refused (zod's `unrecognized_keys` issue, at the nested object's path).
 */
export function optionsSchema<O>(shape: OptionShape<O>): z.ZodType<Partial<O>> {
  let schema = schemas.get(shape);
  if (schema === undefined) {
    schema = z.strictObject(shape as Record<string, z.ZodType>).partial();
    schemas.set(shape, schema);
    shapes.set(schema, shape);
  }
  return schema as z.ZodType<Partial<O>>;
}

/**
 * Refuses what `fn` cannot take as its options (`undefined` is none): anything but an object, a key
 * `shape` does not list, or a nested options object's (optionsSchema: `compaction.autoo`) does not
 * (checkOptionKeys: the message lists the keys it takes), or a value its schema
 * refuses. ValidationError with `details.path` at the first bad value (`compaction.auto`); nothing has
 * been done yet, so nothing is lost.
 */
export function checkOptions<O>(fn: string, options: O | undefined, shape: OptionShape<O>): void {
  if (options === undefined) return;
  if (!isObject(options)) {
    const given = options === null ? "null" : Array.isArray(options) ? "an array" : typeof options;
    throw new ValidationError(`${fn} takes an options object, not ${given}`, [`(root): ${given}`], { path: "(root)" });
  }
  checkNestedKeys(fn, options, shape);
  parseInput(optionsSchema(shape), options, `${fn} option`);
}

/** checkOptionKeys on `options` and on every options object nested in it, at any depth (`compaction.micro`). */
function checkNestedKeys(fn: string, options: object, shape: object, base?: string): void {
  checkOptionKeys(base === undefined ? fn : `${fn} ${base}`, options, shape, base);
  for (const [key, value] of Object.entries(options)) {
    const nested = shapes.get((shape as Record<string, z.ZodType>)[key] as z.ZodType);
    if (nested !== undefined && isObject(value))
      checkNestedKeys(fn, value, nested, base === undefined ? key : `${base}.${key}`);
  }
}
