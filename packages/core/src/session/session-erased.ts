import { InvariantViolation } from "../errors.ts";

/**
 * The refusal of anything that would write to, or go on from, an erased session: InvariantViolation
 * `session-erased`, whose message says what the session cannot do (`it cannot be forked`).
 */
export function sessionErased(
  sessionId: string,
  refused = "it takes no more writes",
  erasedAt?: string,
): InvariantViolation {
  if (erasedAt !== undefined) refused = `${refused} (erased at ${erasedAt})`;
  return new InvariantViolation("session-erased", `session ${sessionId} was erased; ${refused}`, { sessionId });
}
