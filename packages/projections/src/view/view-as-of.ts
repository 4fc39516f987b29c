import { foldEvents, initialState, NotFoundError, type StoredEvent, ValidationError } from "@palimpsest/core";
import { type ActiveView, activeView } from "./active-view.ts";

/**
 * A point in a session's history: just after event `seq`, at a time (the last event at or before it), or
 * at the end of the session's `turn`-th completed turn (1 = the first), which is what the model had seen
 * when it answered that turn.
 */
export type AsOf = { seq: number } | { time: string | Date } | { turn: number };

/** The active view as it stood at a point in the past, and the event it stood after. */
export interface ViewAsOf {
  view: ActiveView;
  /** The last event folded in (0 when the point precedes the session). */
  seq: number;
  occurredAt: string | undefined;
}

/**
 * The active view of a session as of a point in its history, folded from its events (in seq order)
 * up to that point. ValidationError on a malformed point; NotFoundError for a seq or turn the log has not
 * reached yet.
 */
export function viewAsOf(sessionId: string, events: readonly StoredEvent[], at: AsOf): ViewAsOf {
  const end = endOf(events, at);
  const upTo = events.slice(0, end);
  const last = upTo.at(-1);
  return {
    view: activeView(foldEvents(initialState(sessionId), upTo)),
    seq: last?.seq ?? 0,
    occurredAt: last?.occurredAt,
  };
}

/** How many of `events` (from the first) the point includes. */
function endOf(events: readonly StoredEvent[], at: AsOf): number {
  if ("seq" in at) {
    if (!Number.isInteger(at.seq) || at.seq < 0) throw invalid("seq", "a whole number ≥ 0");
    const lastSeq = events.at(-1)?.seq ?? 0;
    if (at.seq > lastSeq) throw new NotFoundError("event", `seq ${at.seq} (the session's last is ${lastSeq})`);
    return events.filter((e) => e.seq <= at.seq).length;
  }
  if ("turn" in at) {
    if (!Number.isInteger(at.turn) || at.turn < 1) throw invalid("turn", "a whole number ≥ 1");
    let turns = 0;
    const index = events.findIndex((e) => e.type === "turn.completed" && ++turns === at.turn);
    if (index < 0) throw new NotFoundError("event", `turn ${at.turn} (the session has completed ${turns})`);
    return index + 1;
  }
  const time = at.time instanceof Date ? at.time : new Date(at.time);
  if (Number.isNaN(time.getTime())) throw invalid("time", "an ISO 8601 date or time");
  const bound = time.getTime();
  return events.filter((e) => Date.parse(e.occurredAt) <= bound).length;
}

function invalid(field: string, expected: string): ValidationError {
  return new ValidationError(`invalid point in time: ${field} must be ${expected}`, [`${field}: expected ${expected}`]);
}
