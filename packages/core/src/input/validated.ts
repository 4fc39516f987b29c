import { z } from "zod";
import { isPlainRecord } from "./own-keys.ts";

/**
 * Each value a schema's parse produced and that was marked (markValidated), with that schema (so a value
 * marked as a message is never taken for an event's data). Module private: only the parses that own their
 * output mark it, and a marked value is frozen, so a mark is never forged nor outlived.
 */
const validatedBy = new WeakMap<object, z.ZodType>();

/**
 * Pushes onto `out` every object of `node` not marked already, children before parents; false as soon as
 * one is neither a plain object nor an array (then `out` is of no use).
 */
function plainObjects(node: unknown, out: object[]): boolean {
  if (node === null || typeof node !== "object" || validatedBy.has(node)) return true;
  if (Array.isArray(node)) {
    if (Object.getPrototypeOf(node) !== Array.prototype) return false;
    for (let i = 0; i < node.length; i++) if (!plainObjects(node[i], out)) return false;
  } else {
    if (!isPlainRecord(node)) return false;
    for (const key of Object.keys(node)) if (!plainObjects(node[key], out)) return false;
  }
  out.push(node);
  return true;
}

/**
 * Records that `value`, the output of `schema`'s parse, is valid against it, so it is not parsed again
 * (isValidated): freezes it deeply first, so it stays what was checked. Only a value made of plain objects
 * and arrays alone is marked; any other (a Date, a class instance inside) is left as it is, unmarked and
 * unfrozen, and is validated again wherever it goes. Every object in `value` must belong to the parse's
 * output (schemas that pass opaque JSON through copy it: plainCopy), never to the caller's input; `value`
 * is a tree (a parse's output is). Returns `value`.
 */
export function markValidated<T>(value: T, schema: z.ZodType): T {
  if (value === null || typeof value !== "object" || validatedBy.has(value)) return value;
  const objects: object[] = [];
  if (!plainObjects(value, objects)) return value;
  for (const object of objects) Object.freeze(object);
  validatedBy.set(value, schema);
  return value;
}

/** True when `value` was marked as a valid output of `schema` (markValidated): it is frozen and need not be parsed again. */
export function isValidated(value: unknown, schema: z.ZodType): boolean {
  return value !== null && typeof value === "object" && validatedBy.get(value) === schema;
}

/**
 * `schema`, but a value marked as its output (markValidated) passes as it is, unparsed; any other value
 * is parsed by `schema`, with the same issues at the same paths.
 */
export function acceptingValidated<S extends z.ZodType>(schema: S): z.ZodType<z.output<S>> {
  return z.unknown().transform((value, ctx): z.output<S> => {
    if (isValidated(value, schema)) return value as z.output<S>;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue });
    return z.NEVER;
  });
}
