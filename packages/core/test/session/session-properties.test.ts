import {
  callsAnsweredIn,
  checkToolPairs,
  decide,
  decodeState,
  encodeState,
  evolve,
  foldEvents,
  initialState,
  isPalimpsestError,
  logKeysOf,
  type SessionCommand,
  type SessionState,
} from "@palimpsest/core";
import { checkUniqueIds } from "@palimpsest/core/testing";
import {
  knownKeysOf,
  runSteps,
  sessionStartedArb,
  sessionStepsArb,
  summaryReplacement,
  supersedeData,
  toStoredEvents,
} from "@palimpsest/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** Decides as a store would: told the keys of what the kit recorded on `state`. */
const decideKnown = (state: SessionState, command: SessionCommand) => decide(state, command, knownKeysOf(state));

const SID = "s-prop";

/** Calls in the view whose result is in the log but not in the view: a split a trailing call can hide. */
function answeredButOpen(state: SessionState): string[] {
  const answered = callsAnsweredIn(knownKeysOf(state));
  const view = state.live.map((e) => e.message);
  const answeredInView = new Set(view.map((m) => m.toolCallId).filter((id) => id !== undefined));
  return view
    .flatMap((m) => m.toolCalls ?? [])
    .map((c) => c.id)
    .filter((id) => answered.has(id) && !answeredInView.has(id));
}
const session = fc.tuple(sessionStartedArb(), sessionStepsArb({ maxSteps: 60 }));
const RUNS = { numRuns: 200 };

/** A generated session run through decide + evolve in memory. */
const run = ([started, steps]: [Parameters<typeof runSteps>[1], Parameters<typeof runSteps>[2]]) =>
  runSteps(SID, started, steps);

describe("generated sessions keep every view invariant", () => {
  it("after every event: exactly-once, nothing superseded live, tool pairs intact, token sum right", () => {
    fc.assert(
      fc.property(session, (input) => {
        const { events } = run(input);
        const state = initialState(SID);
        const superseded = new Set<string>();
        for (const event of events) {
          evolve(state, event);
          if (event.type === "messages.superseded") for (const id of event.data.targets) superseded.add(id);
          const view = state.live.map((e) => e.message);
          expect(checkUniqueIds(view)).toEqual([]);
          expect(view.filter((m) => superseded.has(m.id))).toEqual([]);
          expect(checkToolPairs(view)).toEqual([]);
          expect(state.liveTokens).toBe(state.live.reduce((sum, e) => sum + e.tokens, 0));
          expect(state.lastSeq).toBe(event.seq);
          expect(answeredButOpen(state)).toEqual([]);
        }
      }),
      RUNS,
    );
  });

  it("actually exercises compactions, parallel calls, completed turns and trailing in-flight calls", () => {
    const seen = { summary: 0, prune: 0, retract: 0, parallel: 0, inFlight: 0, turns: 0 };
    fc.assert(
      fc.property(session, (input) => {
        const { events, state } = run(input);
        for (const e of events) {
          if (e.type === "messages.superseded") seen[e.data.mode as "summary" | "prune" | "retract"] += 1;
          if (e.type === "message.appended" && (e.data.message.toolCalls?.length ?? 0) > 1) seen.parallel += 1;
          if (e.type === "turn.completed") seen.turns += 1;
        }
        if (state.pendingCalls.size > 0) seen.inFlight += 1;
      }),
      { numRuns: 100, seed: 20261130 }, // fixed: the coverage check below depends on it
    );
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(0);
  });
});

describe("the decider refuses every compaction that would break the view", () => {
  it("random target sets: accepted ones keep the invariants, and no answered call is reopened", () => {
    const attempt = fc.record({
      picks: fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
      replace: fc.boolean(),
    });
    fc.assert(
      fc.property(session, attempt, (input, { picks, replace }) => {
        const { state } = run(input);
        if (state.live.length === 0) return;
        const targets = [...new Set(picks.map((p) => state.live[p % state.live.length]?.message.id ?? ""))];
        const replacements = replace ? [summaryReplacement("fuzz-summary", "summary")] : [];
        const command = {
          type: "supersede",
          data: supersedeData("fuzz", targets, replacements, state.viewVersion),
        } as const;
        let events: ReturnType<typeof decide>;
        try {
          events = decideKnown(state, command);
        } catch (error) {
          expect(isPalimpsestError(error, "INVARIANT_VIOLATED")).toBe(true);
          return;
        }
        for (const event of toStoredEvents(SID, events, { firstSeq: state.lastSeq + 1 })) {
          evolve(state, event);
          for (const key of logKeysOf(event)) knownKeysOf(state).add(key);
        }
        const view = state.live.map((e) => e.message);
        expect(checkUniqueIds(view)).toEqual([]);
        expect(checkToolPairs(view)).toEqual([]);
        expect(answeredButOpen(state)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe("resume from the log equals the state before the restart", () => {
  it("folding the first k events and then the rest equals folding all at once", () => {
    fc.assert(
      fc.property(session, fc.nat(), (input, cut) => {
        const { events, state } = run(input);
        const k = cut % (events.length + 1);
        const resumed = foldEvents(foldEvents(initialState(SID), events.slice(0, k)), events.slice(k));
        expect(resumed).toStrictEqual(state);
        expect(foldEvents(initialState(SID), events)).toStrictEqual(state);
      }),
      RUNS,
    );
  });

  it("a snapshot of the first k events plus the rest equals the full fold", () => {
    fc.assert(
      fc.property(session, fc.nat(), (input, cut) => {
        const { events, state } = run(input);
        const k = cut % (events.length + 1);
        const snapshot = encodeState(foldEvents(initialState(SID), events.slice(0, k)));
        const restored = decodeState(JSON.parse(JSON.stringify(snapshot)), SID) as SessionState;
        expect(restored).toBeDefined();
        expect(foldEvents(restored, events.slice(k))).toStrictEqual(state);
      }),
      RUNS,
    );
  });
});

describe("state codec", () => {
  it("encodeState then decodeState gives a state deep-equal to the original", () => {
    fc.assert(
      fc.property(session, (input) => {
        const { state } = run(input);
        expect(decodeState(encodeState(state), SID)).toStrictEqual(state);
      }),
      RUNS,
    );
  });

  it("decodes an initial state (nothing optional set)", () => {
    const state = initialState(SID);
    expect(decodeState(encodeState(state), SID)).toStrictEqual(state);
  });

  it("returns undefined for a corrupted checksum, truncated text, another format or another session", () => {
    fc.assert(
      fc.property(session, fc.nat(), (input, n) => {
        const { state } = run(input);
        const encoded = encodeState(state);
        const flipped = encoded.checksum.replace(/^./, (c) => (c === "0" ? "1" : "0"));
        expect(decodeState({ ...encoded, checksum: flipped }, SID)).toBeUndefined();
        const cut = encoded.state.slice(0, n % encoded.state.length);
        expect(decodeState({ ...encoded, state: cut }, SID)).toBeUndefined();
        expect(decodeState({ ...encoded, format: encoded.format + 1 }, SID)).toBeUndefined();
        expect(decodeState(encoded, `${SID}-other`)).toBeUndefined();
        expect(decodeState({ ...encoded, seq: encoded.seq + 1 }, SID)).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it("returns undefined for a truncated text even when the checksum was recomputed over it", async () => {
    const { sha256 } = await import("@palimpsest/core");
    const encoded = encodeState(initialState(SID));
    const cut = encoded.state.slice(0, -1);
    expect(decodeState({ ...encoded, state: cut, checksum: sha256(cut) }, SID)).toBeUndefined();
  });
});
