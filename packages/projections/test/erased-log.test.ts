import {
  decodeState,
  encodeState,
  eventSkeleton,
  foldEvents,
  initialState,
  type StoredEvent,
  validateEvent,
} from "@palimpsest/core";
import { activeView, compactionHistory, expandCompaction, resumeState } from "@palimpsest/projections";
import { generatedSessionArb } from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** The log with every event's data replaced by its skeleton, as an erasure leaves it. */
function erased(events: readonly StoredEvent[]): StoredEvent[] {
  return events.map((e) => ({ ...e, ...eventSkeleton(e) }) as StoredEvent);
}

/** What erasure must keep of a view: ids, roles, tool call ids, tokens. */
function viewShape(events: readonly StoredEvent[]) {
  const state = foldEvents(initialState("s"), events);
  const view = activeView(state);
  return {
    tokens: view.tokens,
    messages: view.messages.map((m) => [m.id, m.role, m.toolCallId, m.toolCalls?.map((c) => c.id)]),
    resume: { ...resumeState(state), settings: undefined },
  };
}

describe("event skeletons (what erasure leaves)", () => {
  it("parse, fold, project and snapshot like the originals, keeping ids, roles, tokens and compaction records", () => {
    fc.assert(
      fc.property(generatedSessionArb(), (session) => {
        const skeleton = erased(session.events);
        for (const e of skeleton) expect(validateEvent(e)).toEqual({ type: e.type, data: e.data });
        expect(erased(skeleton)).toEqual(skeleton); // idempotent
        expect(viewShape(skeleton)).toEqual(viewShape(session.events));
        const history = compactionHistory(session.events);
        expect(compactionHistory(skeleton)).toEqual(history);
        for (const h of history) {
          const ids = (log: StoredEvent[]) =>
            expandCompaction(log, h.compactionId, true).map((x) => [x.message.id, x.tokens, x.seq]);
          expect(ids(skeleton)).toEqual(ids(session.events));
        }
        const state = foldEvents(initialState(session.sessionId), skeleton);
        expect(decodeState(encodeState(state), session.sessionId)).toEqual(state);
        for (const entry of state.live) expect(entry.message.content).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
