import { z } from "zod";
import { isPlainRecord } from "./own-keys.ts";

/**
 * Each value a schema's parse produced and that was marked (markValidated), with that schema. Module
 * private: only the parses that own their output mark it, so a mark is never forged.
 */
const validatedBy = new WeakMap<object, z.ZodType>();

/** True when `node` is made of plain objects and arrays (and primitives) only, or was marked already. */
function isPlainTree(node: unknown): boolean {
  if (node === null || typeof node !== "object" || validatedBy.has(node)) return true;
  if (Array.isArray(node)) {
    if (Object.getPrototypeOf(node) !== Array.prototype) return false;
  } else if (!isPlainRecord(node)) return false;
  for (const child of Object.values(node)) if (!isPlainTree(child)) return false;
  return true;
}

/** Freezes `node` and everything in it (a subtree marked already is frozen already). */
function freezeTree(node: unknown): void {
  if (node === null || typeof node !== "object" || validatedBy.has(node)) return;
  for (const child of Object.values(node)) freezeTree(child);
  Object.freeze(node);
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
  if (value === null || typeof value !== "object" || validatedBy.has(value) || !isPlainTree(value)) return value;
  freezeTree(value);
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
