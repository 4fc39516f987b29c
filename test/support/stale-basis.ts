import type { Palimpsest } from "@palimpsest/runtime";
import { commandForStep } from "@palimpsest/testing";

/**
 * Invariant 6 on a stored session: two handles plan the same compaction on the same view version; the
 * first commits it, the second (its basis now stale) must be refused with CONCURRENCY_CONFLICT
 * `view-version` and change nothing. Returns the problems found, or undefined when the view has nothing
 * a summary could take (too short).
 */
export async function staleBasisProblems(runtime: Palimpsest, sessionId: string): Promise<string[] | undefined> {
  const first = await runtime.resume(sessionId);
  const stale = await runtime.resume(sessionId);
  const command = [1, 0, 2]
    .map((from) => commandForStep(first.state, { kind: "summary", from, length: 2, replace: true, tokens: 10 }))
    .find((c) => c?.type === "supersede");
  if (command?.type !== "supersede") return undefined;
  await first.supersede(command.data);
  const before = await runtime.store.readStream(sessionId);
  const refusal = await stale.supersede(command.data).then(
    () => undefined,
    (error: unknown) => error,
  );
  const problems: string[] = [];
  const { code, details } = (refusal ?? {}) as { code?: string; details?: { subject?: string } };
  if (code !== "CONCURRENCY_CONFLICT" || details?.subject !== "view-version") {
    problems.push(`a stale compaction was not refused as a view-version conflict: ${String(refusal)}`);
  }
  const after = await runtime.store.readStream(sessionId);
  if (after.length !== before.length)
    problems.push(`the refused compaction appended ${after.length - before.length} events`);
  const resumed = await runtime.resume(sessionId);
  if (JSON.stringify(resumed.view()) !== JSON.stringify(first.view())) problems.push("the refusal changed the view");
  return problems;
}
