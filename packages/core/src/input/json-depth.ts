import { z } from "zod";
import { plainCopy } from "./plain-copy.ts";

/**
 * How deep opaque JSON (message metadata, provider reasoning) may nest. Deeper values, and circular ones,
 * are refused with VALIDATION: serializing them would overflow the stack.
 */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests at most `MAX_JSON_DEPTH` levels of arrays and objects (a cycle never does). */
export function withinJsonDepth(value: unknown): boolean {
  // The smallest depth each object passed at, recorded once its subtree is done (so a cycle is never
  // taken for done): a shared subtree is walked again only from a shallower depth.
  const passedAt = new WeakMap<object, number>();
  const walk = (node: unknown, depth: number): boolean => {
    if (node === null || typeof node !== "object") return true;
    if (depth >= MAX_JSON_DEPTH) return false;
    const passed = passedAt.get(node);
    if (passed !== undefined && passed <= depth) return true;
    for (const child of Object.values(node)) if (!walk(child, depth + 1)) return false;
    passedAt.set(node, depth);
    return true;
  };
  return walk(value, 0);
}

/** The issue a value nested too deep gets. */
export const TOO_DEEP = { message: `nested deeper than ${MAX_JSON_DEPTH} levels (or circular)` };

/**
 * Opaque JSON, kept and never interpreted, bounded in depth (see MAX_JSON_DEPTH). Its output is a copy
 * (plainCopy), never the caller's objects; the depth check aborts the parse, so a cycle is never copied.
 */
export const BoundedJsonSchema: z.ZodType<unknown> = z
  .unknown()
  .refine(withinJsonDepth, { ...TOO_DEEP, abort: true })
  .overwrite(plainCopy);
