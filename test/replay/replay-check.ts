import type { Palimpsest, Session } from "@palimpsest/runtime";
import { viewProblems } from "../support/view-invariants.ts";

/**
 * How many summaries a policy leaves live: `one` where every summary folds the earlier one in (summary,
 * prune-first), `ordered` where a summary may follow the earlier ones kept as they were (cost-optimal):
 * then they stay in the order they were written.
 */
export type LiveSummaries = "one" | "ordered";

/**
 * Every view invariant of a replay session after a compaction: viewProblems (exactly-once, tool pairs,
 * roles, token total), the live summaries as the policy leaves them (LiveSummaries), the last appended
 * user message and assistant reply still live verbatim, and resume-equals-view (a runtime reloading the
 * log sees the same messages).
 */
export async function replayProblems(
  runtime: Palimpsest,
  session: Session,
  summaries: LiveSummaries = "one",
): Promise<string[]> {
  const log = await runtime.store.readStream(session.id);
  const problems = viewProblems(session, log);
  const live = session.state.live;
  const placed = live.filter((e) => e.placedBy?.kind === "summary");
  if (summaries === "one" && placed.length > 1) problems.push(`${placed.length} summaries live`);
  const seqs = placed.map((e) => e.seq);
  if (seqs.some((seq, i) => i > 0 && seq <= (seqs[i - 1] as number))) {
    problems.push(`live summaries out of the order they were written (seqs ${seqs.join(", ")})`);
  }
  const appended = log.flatMap((e) => (e.type === "message.appended" ? [e.data.message] : []));
  for (const role of ["user", "assistant"] as const) {
    const last = appended.findLast((m) => m.role === role);
    const kept = live.find((e) => e.message.id === last?.id);
    if (last !== undefined && JSON.stringify(kept?.message) !== JSON.stringify(last)) {
      problems.push(`last ${role} message ${last.id} is not live verbatim`);
    }
  }
  const resumed = await runtime.resume(session.id);
  const ids = (s: Session) => JSON.stringify(s.view().messages.map((m) => m.id));
  if (ids(resumed) !== ids(session)) problems.push("the resumed view differs from the live one");
  return problems;
}
