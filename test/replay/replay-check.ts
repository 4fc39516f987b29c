import type { Palimpsest, Session } from "@palimpsest/store";
import { viewProblems } from "../support/view-invariants.ts";

/**
 * Every view invariant of a replay session after a compaction: viewProblems (exactly-once, tool pairs,
 * roles, token total), at most one live summary, the last appended user message and assistant reply
 * still live verbatim, and resume-equals-view (a runtime reloading the log sees the same messages).
 */
export async function replayProblems(runtime: Palimpsest, session: Session): Promise<string[]> {
  const log = await runtime.store.readStream(session.id);
  const problems = viewProblems(session, log);
  const live = session.state.live;
  const summaries = live.filter((e) => e.placedBy?.kind === "summary").length;
  if (summaries > 1) problems.push(`${summaries} summaries live`);
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
