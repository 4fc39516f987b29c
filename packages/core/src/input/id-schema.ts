import { z } from "zod";

/** A NUL or a UTF-16 surrogate not paired with its other half: what an id may not hold. */
const ILL_FORMED = /\0|\p{Surrogate}/u;

/** True when `value` is well-formed text without NUL: the only strings that survive both engines unchanged. */
export function isWellFormedId(value: string): boolean {
  return !ILL_FORMED.test(value);
}

/**
 * Every id a caller gives (session, message, tool call, turn, compaction, idempotency key, tenant,
 * causation, correlation): non-empty, well-formed text, no NUL. PostgreSQL refuses NUL and both drivers
 * turn a lone surrogate into U+FFFD, so two such ids would alias; they are refused instead.
 */
export const IdSchema = z
  .string()
  .min(1, { message: "an id must not be empty" })
  .refine(isWellFormedId, { message: "an id must be well-formed text: no NUL, no lone surrogate" });
