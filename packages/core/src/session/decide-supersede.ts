import { ConcurrencyConflict, InvariantViolation } from "../errors.ts";
import type { DomainEvent, MessagesSuperseded } from "../events/index.ts";
import { checkToolPairs } from "../invariants/tool-pairs.ts";
import { applySupersede } from "./evolve.ts";
import type { SessionState } from "./session-state.ts";

/**
 * Decides a compaction: its basis must be the current view version, every target live, every
 * replacement id new, and the resulting view must keep every tool call with its results.
 */
export function decideSupersede(state: SessionState, data: MessagesSuperseded): DomainEvent[] {
  const sessionId = state.sessionId;
  if (data.basis.viewVersion !== state.viewVersion) {
    throw new ConcurrencyConflict(sessionId, "view-version", data.basis.viewVersion, state.viewVersion);
  }
  const liveIds = new Set(state.live.map((e) => e.message.id));
  const targets = new Set(data.targets);
  const notLive = data.targets.filter((id) => !liveIds.has(id));
  if (notLive.length > 0 || targets.size !== data.targets.length) {
    throw new InvariantViolation("supersede-target-not-live", `targets not live (or repeated): ${notLive.join(", ")}`, {
      sessionId,
      ids: notLive,
    });
  }
  for (const r of data.replacements) {
    if (state.messageSeq.has(r.message.id) || (r.at !== undefined && !targets.has(r.at))) {
      throw new InvariantViolation("supersede-invalid", `replacement ${r.message.id} reuses an id or sits off-target`, {
        sessionId,
        ids: [r.message.id],
      });
    }
  }
  const inFlight = [...state.pendingCalls.values()].filter((id) => targets.has(id));
  const next = applySupersede(state.live, data, state.lastSeq + 1).map((e) => e.message);
  const broken = checkToolPairs(next);
  if (inFlight.length > 0 || broken.length > 0) {
    throw new InvariantViolation(
      "supersede-splits-tool-pair",
      `compaction ${data.compactionId} would split a tool call from its results`,
      { sessionId, ids: [...inFlight, ...broken.map((v) => v.messageId)] },
    );
  }
  return [{ type: "messages.superseded", data }];
}
