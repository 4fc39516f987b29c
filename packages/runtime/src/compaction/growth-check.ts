import { InvariantViolation, type SessionState, supersedeFor } from "@palimpsest/core";
import type { PreparedCompaction } from "./execute-compaction.ts";
import type { CompactOutcome } from "./execute-plan.ts";

/**
 * What becomes of a prepared compaction that would not shrink the view (its tokens after at least its
 * tokens before), unless `allowGrowth`: a manual one is refused with `INVARIANT_VIOLATED`
 * (`compaction-grows-view`, with the tokens before and after); an automatic one is skipped with a reason
 * that says so. Nothing is written either way. Undefined when the compaction may be committed.
 */
export function growthRefusal(
  state: Readonly<SessionState>,
  prepared: PreparedCompaction<CompactOutcome>,
  options: { trigger: "manual" | "auto"; allowGrowth: boolean },
): { done: CompactOutcome } | undefined {
  const { write } = prepared;
  if (options.allowGrowth || write.kind !== "supersede") return undefined;
  const { tokensBefore, tokensAfter } = supersedeFor(state, write.spec).stats;
  if (tokensAfter < tokensBefore) return undefined;
  const what = `the compaction would take the view from ${tokensBefore} to ${tokensAfter} tokens`;
  if (options.trigger === "auto") {
    return { done: { status: "skipped", reason: `${what}; not written`, grows: { tokensBefore, tokensAfter } } };
  }
  throw new InvariantViolation(
    "compaction-grows-view",
    `${what} (its replacement is no smaller than the ${write.spec.targets.length} messages it supersedes); nothing was written — pass allowGrowth (CLI: --allow-growth) to write it anyway`,
    { sessionId: state.sessionId, tokensBefore, tokensAfter },
  );
}
