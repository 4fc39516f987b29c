import { z } from "zod";
import { isObject } from "../input/json-object.ts";

/**
 * Schemas for reading fields of foreign transcript formats. None of these formats has a published
 * schema and their shapes vary by version, so the readers are lenient by rule: a field of another type
 * than expected reads as absent (a list as empty, an object as `{}`), and fields a reader does not
 * name are kept. What a format requires is checked by its importer, with a ValidationError naming the
 * file and line.
 */

/** A field of any type, kept as it is (absent: undefined). */
export const rawField = z.unknown().optional();

/** A string field, or undefined. */
export const textField = z.string().optional().catch(undefined);

/** A finite number field, or undefined. */
export const numberField = z.number().optional().catch(undefined);

/**
 * A count field (tokens): a whole number of 0 or more, or undefined. A negative or fractional count is
 * taken as none reported, as a count of another type is: the session's usage never holds one.
 */
export const countField = z.number().int().nonnegative().optional().catch(undefined);

/** A boolean field, or undefined. */
export const flagField = z.boolean().optional().catch(undefined);

/** A list field: the array, or an empty one. */
export const listField = z.array(z.unknown()).catch([]);

/** An object with the named fields read by their schemas and every other field kept; a non-object reads as `{}`. */
export function recordOf<S extends z.ZodRawShape>(shape: S) {
  return z.preprocess((value) => (isObject(value) ? value : {}), z.looseObject(shape));
}

/** Reads `value` with one of the schemas above (they cannot fail: they only narrow). */
export function read<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  return schema.parse(value);
}
