import { ConcurrencyConflict, InvariantViolation } from "../errors.ts";
import type { CompactionMode, DomainEvent, MessagesSuperseded } from "../events/index.ts";
import { checkToolPairs } from "../invariants/tool-pairs.ts";
import { applySupersede } from "./evolve.ts";
import { lastTurnIndices } from "./last-turn.ts";
import { compactionKey, type KnownKeys, messageKey } from "./log-keys.ts";
import { pendingCallsOf } from "./pending-calls.ts";
import type { SessionState } from "./session-state.ts";

/**
 * Decides a compaction: its basis must be the current view version, its compaction id new, every
 * target live, every replacement id new, a new rolling-summary marker must supersede every live one
 * (only the newest marker is live), a micro compaction must not absorb a real user message, no
 * compaction may absorb the last real user message or the last assistant reply, and the resulting view
 * must keep every tool call with its results (a retraction may withdraw calls still waiting for results).
 * `known`: the log keys of the compaction the log already holds (see commandKeys).
 */
export function decideSupersede(state: SessionState, known: KnownKeys, data: MessagesSuperseded): DomainEvent[] {
  const sessionId = state.sessionId;
  if (data.basis.viewVersion !== state.viewVersion) {
    throw new ConcurrencyConflict(sessionId, "view-version", data.basis.viewVersion, state.viewVersion);
  }
  if (known.has(compactionKey(data.compactionId))) {
    throw new InvariantViolation("supersede-invalid", `compaction id ${data.compactionId} is already used`, {
      sessionId,
      ids: [data.compactionId],
    });
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
  const replacementIds = new Set<string>();
  for (const r of data.replacements) {
    const reused = known.has(messageKey(r.message.id)) || replacementIds.has(r.message.id);
    replacementIds.add(r.message.id);
    if (reused || (r.at !== undefined && !targets.has(r.at))) {
      throw new InvariantViolation("supersede-invalid", `replacement ${r.message.id} reuses an id or sits off-target`, {
        sessionId,
        ids: [r.message.id],
      });
    }
  }
  checkMarkersAndUsers(state, data, targets);
  const nextEntries = applySupersede(state.live, data, state.lastSeq + 1);
  const stillPending = pendingCallsOf(nextEntries);
  // A target's in-flight call must stay in flight: a replacement that carries the same call (a mirror
  // revising its trailing assistant message, which gained blocks while its calls ran) keeps it open. A
  // retraction may withdraw it (an abandoned approval, a popped call): no result of it is in the log.
  const inFlight = [...state.pendingCalls]
    .filter(([call, owner]) => data.mode !== "retract" && targets.has(owner) && !stillPending.has(call))
    .map(([, owner]) => owner);
  const broken = checkToolPairs(nextEntries.map((e) => e.message));
  // A trailing call is allowed to be open, but a compaction must not reopen one by removing its result
  // (a call the replacements bring that the view never answered is new, as when a mirror revises its last
  // assistant message that gained a call).
  const answered = new Set(
    state.live.flatMap((e) => (e.message.toolCallId === undefined ? [] : [e.message.toolCallId])),
  );
  const reopened = [...stillPending]
    .filter(([call]) => !state.pendingCalls.has(call) && answered.has(call))
    .map(([, id]) => id);
  if (inFlight.length > 0 || broken.length > 0 || reopened.length > 0) {
    throw new InvariantViolation(
      "supersede-splits-tool-pair",
      `compaction ${data.compactionId} would split a tool call from its results`,
      { sessionId, ids: [...new Set([...inFlight, ...broken.map((v) => v.messageId), ...reopened])] },
    );
  }
  checkLastExchange(state, data, targets);
  return [{ type: "messages.superseded", data }];
}

/** Invariants 4 and 5: one live rolling-summary marker at most; micro compactions leave user messages alone. */
function checkMarkersAndUsers(state: SessionState, data: MessagesSuperseded, targets: ReadonlySet<string>): void {
  const sessionId = state.sessionId;
  if (data.replacements.some((r) => r.kind === "rolling-summary")) {
    const kept = state.live
      .filter((e) => e.placedBy?.kind === "rolling-summary" && !targets.has(e.message.id))
      .map((e) => e.message.id);
    if (kept.length > 0) {
      throw new InvariantViolation(
        "supersede-duplicates-marker",
        `compaction ${data.compactionId} places a rolling-summary marker but leaves ${kept.join(", ")} live`,
        { sessionId, ids: kept },
      );
    }
  }
  if (data.mode === "micro") {
    const users = state.live
      .filter((e) => targets.has(e.message.id) && e.message.role === "user" && e.placedBy === undefined)
      .map((e) => e.message.id);
    if (users.length > 0) {
      throw new InvariantViolation(
        "micro-absorbs-user-message",
        `micro compaction ${data.compactionId} would absorb user messages ${users.join(", ")}`,
        { sessionId, ids: users },
      );
    }
  }
}

/**
 * Modes that may remove the last exchange: an import records a compaction that already happened at the
 * source (its summary stood for everything before it), and a retraction withdraws messages on purpose.
 */
const MAY_ABSORB_LAST_EXCHANGE: ReadonlySet<CompactionMode> = new Set(["import", "retract"]);

/**
 * Invariant 4: the last real user message and the last assistant reply stay verbatim, whatever wrote the
 * compaction (a policy, `compactRange`, a caller's own supersede). Their tool results are not covered: a
 * trim or prune stub keeps the call id, so the reply's text and calls stay whole.
 */
function checkLastExchange(state: SessionState, data: MessagesSuperseded, targets: ReadonlySet<string>): void {
  if (MAY_ABSORB_LAST_EXCHANGE.has(data.mode)) return;
  const { lastUser, lastAssistant } = lastTurnIndices(state.live);
  const absorbed = [lastUser, lastAssistant]
    .map((i) => state.live[i]?.message.id)
    .filter((id): id is string => id !== undefined && targets.has(id));
  if (absorbed.length > 0) {
    throw new InvariantViolation(
      "supersede-absorbs-last-exchange",
      `compaction ${data.compactionId} would absorb the last user message or reply (${absorbed.join(", ")})`,
      { sessionId: state.sessionId, ids: absorbed },
    );
  }
}
