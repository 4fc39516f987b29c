import {
  checkToolPairs,
  type DomainEvent,
  decide,
  initialState,
  type Message,
  type SessionCommand,
  type SessionState,
  type ValidationIssue,
} from "@palimpsest/core";
import {
  appendCommand,
  assistantMessage,
  execute,
  knownKeysOf,
  startedData,
  stubReplacement,
  summaryReplacement,
  supersedeData,
  toolResult,
  userMessage,
} from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { decidePure, expectError, expectViolation } from "../support/expect-error.ts";

/** Decides as a store would: told the keys of what the kit recorded on `state`. */
const decideKnown = (state: SessionState, command: SessionCommand) => decide(state, command, knownKeysOf(state));

const SID = "s-decide";

/** Given: a state built by executing `commands` (after a start) through decide + evolve. */
function given(...commands: SessionCommand[]): SessionState {
  const state = initialState(SID);
  execute(state, { type: "start", data: startedData() });
  for (const command of commands) execute(state, command);
  return state;
}

const append = (...messages: Message[]) => appendCommand(messages);
const liveIds = (state: SessionState) => state.live.map((e) => e.message.id);

/** u1, a1 calling c1+c2, their results, a closing assistant reply. */
const exchange = [
  append(userMessage("u1", "list files")),
  append(assistantMessage("a1", "", ["c1", "c2"])),
  append(toolResult("r1", "c1", "a.txt"), toolResult("r2", "c2", "b.txt")),
  append(assistantMessage("a2", "two files")),
];

/** A later user message and reply: the last exchange, which no compaction may absorb. */
const closing = [append(userMessage("u9", "thanks")), append(assistantMessage("a9", "you are welcome"))];

describe("decide: start", () => {
  it("records session.started on a fresh session", () => {
    const events = decidePure(initialState(SID), { type: "start", data: startedData() });
    expect(events).toEqual([{ type: "session.started", data: startedData() }]);
  });

  it("refuses a second start with session-already-started", () => {
    const details = expectViolation(given(), { type: "start", data: startedData() }, "session-already-started");
    expect(details.sessionId).toBe(SID);
  });

  it("refuses start data that fails the schema with VALIDATION", () => {
    const bad = { type: "start", data: { encoding: "latin1" } } as unknown as SessionCommand;
    const error = expectError(() => decideKnown(initialState(SID), bad), "VALIDATION");
    expect((error.details as { issues: ValidationIssue[] }).issues.some((i) => i.path === "encoding")).toBe(true);
  });
});

describe("decide: append", () => {
  it("refuses an append before start with session-not-started", () => {
    expectViolation(initialState(SID), append(userMessage("u1", "hi")), "session-not-started");
  });

  it("records one message.appended per message, carrying tokens and turn id", () => {
    const events = decidePure(
      given(),
      appendCommand([userMessage("u1", "hi"), assistantMessage("a1", "hello")], 7, "t1"),
    );
    expect(events).toEqual([
      { type: "message.appended", data: { message: userMessage("u1", "hi"), tokens: 7, turnId: "t1" } },
      { type: "message.appended", data: { message: assistantMessage("a1", "hello"), tokens: 7, turnId: "t1" } },
    ]);
  });

  it.each([["wizard"], [""]])("refuses role %j with VALIDATION naming the message", (role) => {
    const message = { id: "x1", role, content: [{ type: "text", text: "hi" }] } as unknown as Message;
    const error = expectError(() => decideKnown(given(), append(message)), "VALIDATION");
    const details = error.details as { issues: ValidationIssue[]; path?: string };
    expect(details.path).toBe("messages[0]");
    expect(details.issues.some((i) => i.path === "role")).toBe(true);
  });

  it("refuses a negative or fractional token count with VALIDATION", () => {
    const command: SessionCommand = {
      type: "append-messages",
      messages: [{ message: userMessage("u1", "x"), tokens: -1 }],
    };
    expectError(() => decideKnown(given(), command), "VALIDATION");
    const fractional: SessionCommand = {
      type: "append-messages",
      messages: [{ message: userMessage("u1", "x"), tokens: 1.5 }],
    };
    expectError(() => decideKnown(given(), fractional), "VALIDATION");
  });

  it("refuses an empty message with empty-message", () => {
    const details = expectViolation(given(), append({ id: "u1", role: "user", content: [] }), "empty-message");
    expect(details.ids).toEqual(["u1"]);
    expectViolation(given(), append(userMessage("u2", "")), "empty-message");
    expectViolation(given(), append(assistantMessage("a1", "")), "empty-message");
  });

  it("accepts a tool result with empty text (results are never empty)", () => {
    const state = given(append(assistantMessage("a1", "", ["c1"])));
    expect(decidePure(state, append(toolResult("r1", "c1", "")))).toHaveLength(1);
  });

  it("refuses a message id already in the log with duplicate-message-id", () => {
    const state = given(append(userMessage("u1", "hi")));
    expect(expectViolation(state, append(userMessage("u1", "again")), "duplicate-message-id").ids).toEqual(["u1"]);
  });

  it("refuses an id that was superseded (ids stay reserved by the log)", () => {
    const state = given(append(userMessage("u1", "hi")), append(assistantMessage("a1", "hello")), {
      type: "supersede",
      data: supersedeData("k1", ["u1"], [], 0, { mode: "retract" }),
    });
    expectViolation(state, append(userMessage("u1", "hi")), "duplicate-message-id");
  });

  it("refuses a duplicate id within one batch, writing nothing", () => {
    expectViolation(given(), append(userMessage("u1", "a"), userMessage("u1", "b")), "duplicate-message-id");
  });

  it("refuses a tool result for an unknown call with tool-result-without-live-call", () => {
    const state = given(append(userMessage("u1", "hi")));
    const details = expectViolation(state, append(toolResult("r1", "nope", "x")), "tool-result-without-live-call");
    expect(details.ids).toEqual(["r1", "nope"]);
  });

  it("refuses a tool result for a call of an older assistant message", () => {
    const state = given(...exchange, append(assistantMessage("a3", "", ["c3"])));
    expectViolation(state, append(toolResult("r9", "c9", "x")), "tool-result-without-live-call");
  });

  it("refuses a second result for the same call with duplicate-tool-result", () => {
    const state = given(append(assistantMessage("a1", "", ["c1", "c2"])), append(toolResult("r1", "c1", "x")));
    expectViolation(state, append(toolResult("r1b", "c1", "again")), "duplicate-tool-result");
  });

  it("refuses a second result for the same call within one batch", () => {
    const state = given(append(assistantMessage("a1", "", ["c1", "c2"])));
    // the batch's first result consumed the call; the second finds it neither pending nor in the log
    const details = expectViolation(
      state,
      append(toolResult("r1", "c1", "x"), toolResult("r1b", "c1", "y")),
      "tool-result-without-live-call",
    );
    expect(details.ids).toEqual(["r1b", "c1"]);
  });

  it("refuses a user message after unanswered calls with tool-calls-without-results", () => {
    const state = given(append(assistantMessage("a1", "", ["c1", "c2"])), append(toolResult("r1", "c1", "x")));
    const details = expectViolation(state, append(userMessage("u1", "next")), "tool-calls-without-results");
    expect(details.ids).toEqual(["c2"]);
  });

  it("refuses unanswered calls followed by a message in the same batch", () => {
    expectViolation(
      given(),
      append(assistantMessage("a1", "", ["c1"]), assistantMessage("a2", "done")),
      "tool-calls-without-results",
    );
  });

  it("refuses a reused tool call id with duplicate-tool-call-id", () => {
    const state = given(append(assistantMessage("a1", "", ["c1"])), append(toolResult("r1", "c1", "x")));
    expectViolation(state, append(assistantMessage("a2", "", ["c1"])), "duplicate-tool-call-id");
    expectViolation(given(), append(assistantMessage("a3", "", ["c7", "c7"])), "duplicate-tool-call-id");
    // The message says what to do: a model numbering its calls anew in each response reuses ids.
    expect(() => decideKnown(state, append(assistantMessage("a2", "", ["c1"])))).toThrow(
      "tool call id c1 is already used: each call of a session needs an id of its own",
    );
  });

  it.each([[["c1", "c2", "c3"]], [["c3", "c1", "c2"]], [["c2", "c3", "c1"]]])(
    "accepts parallel calls answered in order %j, one batch or one by one",
    (order) => {
      const calls = append(assistantMessage("a1", "", ["c1", "c2", "c3"]));
      const results = order.map((c) => toolResult(`r-${c}`, c, c));
      const batched = given(calls, append(...results), append(userMessage("u2", "thanks")));
      const single = given(calls, ...results.map((r) => append(r)), append(userMessage("u2", "thanks")));
      for (const state of [batched, single]) {
        expect(state.pendingCalls.size).toBe(0);
        expect(liveIds(state)).toEqual(["a1", ...results.map((r) => r.id), "u2"]);
        expect(checkToolPairs(state.live.map((e) => e.message))).toEqual([]);
      }
    },
  );

  it("accepts an answer and the next message in one batch", () => {
    const state = given(append(assistantMessage("a1", "", ["c1"])));
    expect(decidePure(state, append(toolResult("r1", "c1", "x"), userMessage("u1", "ok")))).toHaveLength(2);
  });
});

describe("decide: turns, failures, hand-off", () => {
  const openTurn = () => given(appendCommand([userMessage("u1", "hi")], 10, "t1"));

  it("records a completed turn without undefined fields", () => {
    expect(decidePure(openTurn(), { type: "complete-turn", turnId: "t1" })).toEqual([
      { type: "turn.completed", data: { turnId: "t1" } },
    ]);
    const events = decidePure(openTurn(), { type: "complete-turn", turnId: "t1", usage: { promptTokens: 3 } });
    expect(events[0]?.data).toEqual({ turnId: "t1", usage: { promptTokens: 3 } });
  });

  it("refuses to complete a turn no append named, with unknown-turn", () => {
    const details = expectViolation(given(...exchange), { type: "complete-turn", turnId: "t9" }, "unknown-turn");
    expect(details.ids).toEqual(["t9"]);
    // Appends without a turn id name no turn.
    expectViolation(given(append(userMessage("u1", "hi"))), { type: "complete-turn", turnId: "t1" }, "unknown-turn");
  });

  it("completes a turn once: completing it again decides no event, and later appends keep it completed", () => {
    const state = openTurn();
    execute(state, { type: "complete-turn", turnId: "t1", usage: { promptTokens: 3 } });
    expect(decidePure(state, { type: "complete-turn", turnId: "t1", usage: { promptTokens: 9 } })).toEqual([]);
    execute(state, appendCommand([assistantMessage("a2", "late reply")], 10, "t1"));
    expect(decidePure(state, { type: "complete-turn", turnId: "t1" })).toEqual([]);
    expect(state.turns).toBe(1);
    expect(state.lastTurn).toEqual({ turnId: "t1", usage: { promptTokens: 3 } });
  });

  it("records a compaction failure without changing the view", () => {
    const state = given(...exchange);
    const before = liveIds(state);
    execute(state, {
      type: "record-compaction-failure",
      data: { mode: "summary", reason: "timeout", attempt: 1, targets: ["u1"] },
    });
    expect(liveIds(state)).toEqual(before);
    expect(state.failures).toBe(1);
    expect(state.viewVersion).toBe(0);
  });

  it("refuses appends, turns and compactions after hand-off with session-handed-off", () => {
    const state = given(...exchange, { type: "hand-off", toSessionId: "s-next", reason: "rotate" });
    expect(state.handedOffTo).toBe("s-next");
    const details = expectViolation(state, append(userMessage("u9", "late")), "session-handed-off");
    expect(details.ids).toEqual(["s-next"]);
    expectViolation(state, { type: "complete-turn", turnId: "t9" }, "session-handed-off");
    expectViolation(state, { type: "supersede", data: supersedeData("k1", ["u1"], [], 0) }, "session-handed-off");
    expectViolation(state, { type: "hand-off", toSessionId: "s-other" }, "session-handed-off");
  });
});

describe("decide: supersede", () => {
  const summaryOf = (targets: string[], viewVersion = 0) =>
    ({
      type: "supersede",
      data: supersedeData("k1", targets, [summaryReplacement("sum1", "they listed files")], viewVersion),
    }) satisfies SessionCommand;

  it("replaces a whole exchange by a summary where its first target stood", () => {
    const state = given(...exchange, ...closing);
    const events = decidePure(state, summaryOf(["a1", "r1", "r2", "a2"]));
    expect(events).toHaveLength(1);
    execute(state, summaryOf(["a1", "r1", "r2", "a2"]));
    expect(liveIds(state)).toEqual(["u1", "sum1", "u9", "a9"]);
    expect(state.viewVersion).toBe(1);
    expect(state.liveTokens).toBe(10 + 5 + 10 + 10);
    expect(state.live[1]?.placedBy).toEqual({ compactionId: "k1", kind: "summary" });
    expect(state.lastCompaction).toMatchObject({ compactionId: "k1", targets: 4, mode: "summary" });
  });

  it("places prune stubs with `at`, each where its tool result stood", () => {
    const state = given(...exchange);
    const data = supersedeData(
      "k1",
      ["r1", "r2"],
      [stubReplacement("p2", "c2", "r2"), stubReplacement("p1", "c1", "r1")],
      0,
      { mode: "prune" },
    );
    execute(state, { type: "supersede", data });
    expect(liveIds(state)).toEqual(["u1", "a1", "p1", "p2", "a2"]);
    expect(checkToolPairs(state.live.map((e) => e.message))).toEqual([]);
    expect(state.liveTokens).toBe(10 + 10 + 2 + 2 + 10);
  });

  it("may prune results of the trailing in-flight call while a sibling is still pending", () => {
    const state = given(append(userMessage("u1", "go")), append(assistantMessage("a1", "", ["c1", "c2"])));
    execute(state, append(toolResult("r1", "c1", "big output")));
    const data = supersedeData("k1", ["r1"], [stubReplacement("p1", "c1", "r1")], 0, { mode: "prune" });
    execute(state, { type: "supersede", data });
    expect([...state.pendingCalls.keys()]).toEqual(["c2"]);
    expectViolation(state, append(toolResult("r1b", "c1", "again")), "duplicate-tool-result");
    execute(state, append(toolResult("r2", "c2", "ok")));
    expect(liveIds(state)).toEqual(["u1", "a1", "p1", "r2"]);
  });

  it("refuses a stale basis with CONCURRENCY_CONFLICT on view-version, carrying expected and actual", () => {
    const state = given(...exchange, ...closing, summaryOf(["a1", "r1", "r2", "a2"]));
    const before = structuredClone(state);
    const error = expectError(
      () => decideKnown(state, { type: "supersede", data: supersedeData("k2", ["u1"], [], 0) }),
      "CONCURRENCY_CONFLICT",
    );
    expect(error.details).toEqual({
      sessionId: SID,
      subject: "view-version",
      expected: 0,
      actual: 1,
      reason: "precondition",
    });
    expect(state).toStrictEqual(before);
  });

  it("refuses an already superseded or unknown target with supersede-target-not-live", () => {
    const state = given(...exchange, ...closing, summaryOf(["a1", "r1", "r2", "a2"]));
    const gone = expectViolation(
      state,
      { type: "supersede", data: supersedeData("k2", ["a2"], [], 1) },
      "supersede-target-not-live",
    );
    expect(gone.ids).toEqual(["a2"]);
    const unknown = expectViolation(
      state,
      { type: "supersede", data: supersedeData("k2", ["u1", "ghost"], [], 1) },
      "supersede-target-not-live",
    );
    expect(unknown.ids).toEqual(["ghost"]);
  });

  it("refuses a repeated target with supersede-target-not-live", () => {
    expectViolation(
      given(...exchange),
      { type: "supersede", data: supersedeData("k1", ["u1", "u1"], [], 0) },
      "supersede-target-not-live",
    );
  });

  it("refuses a replacement that reuses an id or sits off-target with supersede-invalid", () => {
    const state = given(...exchange);
    expectViolation(
      state,
      { type: "supersede", data: supersedeData("k1", ["u1"], [summaryReplacement("a2", "x")], 0) },
      "supersede-invalid",
    );
    expectViolation(
      state,
      { type: "supersede", data: supersedeData("k1", ["r1"], [stubReplacement("p1", "c1", "r2")], 0) },
      "supersede-invalid",
    );
  });

  it("refuses two replacements with the same new id with supersede-invalid", () => {
    const state = given(...exchange);
    const data = supersedeData(
      "k1",
      ["r1", "r2"],
      [stubReplacement("p1", "c1", "r1"), stubReplacement("p1", "c2", "r2")],
      0,
      { mode: "prune" },
    );
    expectViolation(state, { type: "supersede", data }, "supersede-invalid");
  });

  it.each([
    ["the assistant but not its results", ["a1"]],
    ["the results but not their assistant", ["r1", "r2"]],
    ["one of two results of a closed exchange", ["r1"]],
    ["a span that cuts between an assistant and its results", ["u1", "a1", "r1"]],
  ])("refuses removing %s with supersede-splits-tool-pair", (_name, targets) => {
    const state = given(...exchange);
    expectViolation(
      state,
      { type: "supersede", data: supersedeData("k1", targets, [], 0) },
      "supersede-splits-tool-pair",
    );
  });

  it("refuses targeting the trailing in-flight call with supersede-splits-tool-pair", () => {
    const state = given(
      ...exchange,
      append(assistantMessage("a3", "", ["c3", "c4"])),
      append(toolResult("r3", "c3", "x")),
    );
    const details = expectViolation(
      state,
      { type: "supersede", data: supersedeData("k1", ["a2", "a3", "r3"], [summaryReplacement("s", "x")], 0) },
      "supersede-splits-tool-pair",
    );
    expect(details.ids).toContain("a3");
  });

  it("allows replacing the owner of in-flight calls by a message keeping them (a mirror's revision); the calls stay pending", () => {
    const state = given(append(userMessage("u1", "go")), append(assistantMessage("a1", "", ["c1", "c2"])));
    const revised = {
      kind: "stub" as const,
      message: assistantMessage("a1~r4", "", ["c1", "c2", "c3"]),
      tokens: 10,
      at: "a1",
    };
    execute(state, {
      type: "supersede",
      data: supersedeData("a1~r4:revision", ["a1"], [revised], 0, { mode: "import" }),
    });
    expect([...state.pendingCalls]).toEqual([
      ["c1", "a1~r4"],
      ["c2", "a1~r4"],
      ["c3", "a1~r4"],
    ]);
    execute(state, append(toolResult("r1", "c1", "ok")));
    expect(liveIds(state)).toEqual(["u1", "a1~r4", "r1"]);
    // Dropping one of them is still a split.
    const dropping = given(append(userMessage("u1", "go")), append(assistantMessage("a1", "", ["c1", "c2"])));
    const partial = { kind: "stub" as const, message: assistantMessage("a1~r4", "", ["c1"]), tokens: 10, at: "a1" };
    const details = expectViolation(
      dropping,
      { type: "supersede", data: supersedeData("a1~r4:revision", ["a1"], [partial], 0, { mode: "import" }) },
      "supersede-splits-tool-pair",
    );
    expect(details.ids).toContain("a1");
  });

  it("refuses removing an answered result of the trailing exchange (it would reopen the call)", () => {
    const state = given(...exchange.slice(0, 3));
    expectViolation(
      state,
      { type: "supersede", data: supersedeData("k1", ["r2"], [], 0) },
      "supersede-splits-tool-pair",
    );
    const inFlight = given(append(assistantMessage("a1", "", ["c1", "c2"])), append(toolResult("r1", "c1", "x")));
    expectViolation(
      inFlight,
      { type: "supersede", data: supersedeData("k1", ["r1"], [], 0) },
      "supersede-splits-tool-pair",
    );
  });

  it("lets a revision replace the trailing assistant message with its in-flight calls carried (and a new one added)", () => {
    // A mirror's revision: a1 grew from one call (c1 answered, c2 waiting) to three.
    const state = given(
      append(userMessage("u1", "look")),
      append(assistantMessage("a1", "", ["c1", "c2"])),
      append(toolResult("r1", "c1", "x")),
    );
    const revised = {
      kind: "stub" as const,
      message: assistantMessage("a1~r4", "", ["c1", "c2", "c3"]),
      tokens: 3,
      at: "a1",
    };
    const events = decidePure(state, {
      type: "supersede",
      data: supersedeData("a1~r4:revision", ["a1"], [revised], 0, { mode: "import" }),
    });
    expect(events.map((e) => e.type)).toEqual(["messages.superseded"]);
    // Dropping a waiting call, or a call a result already answered, still splits the pair.
    for (const calls of [
      ["c1", "c3"],
      ["c2", "c3"],
    ]) {
      const dropping = { ...revised, message: assistantMessage("a1~r4", "", calls) };
      expectViolation(
        state,
        { type: "supersede", data: supersedeData("a1~r4:revision", ["a1"], [dropping], 0, { mode: "import" }) },
        "supersede-splits-tool-pair",
      );
    }
  });

  describe("a revision of the trailing assistant message (a mirror's message that grew)", () => {
    /** Replaces `target` by `replacement` where it stood, as the mirror's fold revises a grown message. */
    const revise = (compactionId: string, target: string, replacement: Message, viewVersion = 0): SessionCommand => ({
      type: "supersede",
      data: supersedeData(
        compactionId,
        [target],
        [{ kind: "stub", message: replacement, tokens: 10, at: target }],
        viewVersion,
        {
          mode: "import",
        },
      ),
    });

    it("allows a replacement that brings a new, unanswered tool call at the tail", () => {
      const state = given(
        ...exchange,
        append(userMessage("u3", "build it")),
        append(assistantMessage("a3", "let me check")),
      );
      const grown = { ...assistantMessage("a3~r1", "let me check", ["c9"]) };
      execute(state, revise("rev1", "a3", grown));
      expect(liveIds(state).slice(-2)).toEqual(["u3", "a3~r1"]);
      expect([...state.pendingCalls.keys()]).toEqual(["c9"]);
      execute(state, append(toolResult("r9", "c9", "built")));
      expect(state.pendingCalls.size).toBe(0);
      expect(checkToolPairs(state.live.map((e) => e.message))).toEqual([]);
    });

    it("allows a replacement adding a call beside an answered one whose result stays", () => {
      const state = given(
        append(userMessage("u1", "go")),
        append(assistantMessage("a1", "", ["c1"])),
        append(toolResult("r1", "c1", "x")),
      );
      // a1 is answered and not in flight: its revision keeps c1 (answered by r1, still live) and adds c2.
      expect(decidePure(state, revise("rev1", "a1", assistantMessage("a1~r1", "", ["c1", "c2"])))).toHaveLength(1);
    });

    it("allows a replacement of a message with a pending call that keeps the call and adds one", () => {
      const state = given(append(userMessage("u1", "go")), append(assistantMessage("a1", "", ["c1"])));
      execute(state, revise("rev1", "a1", assistantMessage("a1~r1", "", ["c1", "c2"])));
      expect([...state.pendingCalls.keys()].sort()).toEqual(["c1", "c2"]);
    });

    it("refuses a replacement of a message with a pending call that drops the call (supersede-splits-tool-pair)", () => {
      const state = given(append(userMessage("u1", "go")), append(assistantMessage("a1", "", ["c1"])));
      expectViolation(
        state,
        revise("rev1", "a1", assistantMessage("a1~r1", "no call after all")),
        "supersede-splits-tool-pair",
      );
    });

    it("still refuses a replacement that removes a live call's result, reopening it (supersede-splits-tool-pair)", () => {
      const state = given(
        append(userMessage("u1", "go")),
        append(assistantMessage("a1", "", ["c1"])),
        append(toolResult("r1", "c1", "x")),
      );
      const before = structuredClone(state);
      const data = supersedeData(
        "rev1",
        ["a1", "r1"],
        [{ kind: "stub", message: assistantMessage("a1~r1", "more", ["c1"]), tokens: 10, at: "a1" }],
        0,
        { mode: "import" },
      );
      const details = expectViolation(state, { type: "supersede", data }, "supersede-splits-tool-pair");
      expect(details.ids).toEqual(["a1~r1"]);
      expect(state).toStrictEqual(before);
    });
  });

  it("refuses a compaction id already used in the session with supersede-invalid", () => {
    const state = given(...exchange, ...closing, summaryOf(["a1", "r1", "r2", "a2"]));
    const details = expectViolation(
      state,
      { type: "supersede", data: supersedeData("k1", ["sum1"], [summaryReplacement("sum2", "x")], 1) },
      "supersede-invalid",
    );
    expect(details.ids).toEqual(["k1"]);
    const fresh = { type: "supersede", data: supersedeData("k2", ["sum1"], [summaryReplacement("sum2", "x")], 1) };
    expect(decidePure(state, fresh as SessionCommand)).toHaveLength(1);
  });

  describe("rolling-summary markers (only the newest is live)", () => {
    const marker = (id: string) => ({
      kind: "rolling-summary" as const,
      message: userMessage(id, "so far"),
      tokens: 5,
    });
    const micro = (id: string, targets: string[], replacement: ReturnType<typeof marker>, viewVersion: number) =>
      ({
        type: "supersede",
        data: supersedeData(id, targets, [replacement], viewVersion, { mode: "micro" }),
      }) satisfies SessionCommand;

    it("accepts a new marker that supersedes the live one", () => {
      const state = given(...exchange, ...closing, micro("m1", ["a1", "r1", "r2", "a2"], marker("rs1"), 0));
      execute(state, append(assistantMessage("a3", "more"), assistantMessage("a4", "last")));
      execute(state, micro("m2", ["rs1", "a9", "a3"], marker("rs2"), 1));
      expect(liveIds(state)).toEqual(["u1", "rs2", "u9", "a4"]);
    });

    it("refuses a new marker that leaves the live one in place with supersede-duplicates-marker", () => {
      const state = given(...exchange, ...closing, micro("m1", ["a1", "r1", "r2", "a2"], marker("rs1"), 0));
      execute(state, append(assistantMessage("a3", "more"), assistantMessage("a4", "last")));
      const details = expectViolation(state, micro("m2", ["a3"], marker("rs2"), 1), "supersede-duplicates-marker");
      expect(details.ids).toEqual(["rs1"]);
    });
  });

  it("refuses a micro compaction that absorbs a real user message with micro-absorbs-user-message", () => {
    const state = given(...exchange, ...closing);
    const data = supersedeData("m1", ["u1", "a1", "r1", "r2", "a2"], [summaryReplacement("s1", "x")], 0, {
      mode: "micro",
    });
    const details = expectViolation(state, { type: "supersede", data }, "micro-absorbs-user-message");
    expect(details.ids).toEqual(["u1"]);
    const batch = supersedeData("k1", ["u1", "a1", "r1", "r2", "a2"], [summaryReplacement("s1", "x")], 0);
    expect(decidePure(state, { type: "supersede", data: batch })).toHaveLength(1);
  });

  it.each(["summary", "micro", "defrag", "precompact", "prune", "trim"] as const)(
    "refuses a %s compaction over the last user message or the last reply with supersede-absorbs-last-exchange",
    (mode) => {
      const state = given(...exchange, ...closing);
      const before = structuredClone(state);
      const cases = [
        [
          ["a2", "u9", "a9"],
          ["u9", "a9"],
        ],
        [["a9"], ["a9"]],
        [["u9"], ["u9"]],
      ] as const;
      // A micro compaction over a user message is refused by its own rule first (micro-absorbs-user-message).
      for (const [targets, absorbed] of mode === "micro" ? cases.slice(1, 2) : cases) {
        const data = supersedeData("k1", targets, [summaryReplacement("s1", "x")], 0, { mode });
        const details = expectViolation(state, { type: "supersede", data }, "supersede-absorbs-last-exchange");
        expect(details.ids).toEqual(absorbed);
      }
      expect(state).toStrictEqual(before);
    },
  );

  it("lets an import or a retraction take the last exchange, and a prune stub the reply's tool results", () => {
    const state = given(...exchange);
    for (const mode of ["import", "retract"] as const) {
      const data = supersedeData("k1", ["u1", "a1", "r1", "r2", "a2"], [summaryReplacement("s1", "x")], 0, { mode });
      expect(decidePure(state, { type: "supersede", data })).toHaveLength(1);
    }
    const tail = given(append(userMessage("u1", "go")), append(assistantMessage("a1", "", ["c1"])));
    execute(tail, append(toolResult("r1", "c1", "big output")));
    const prune = supersedeData("k1", ["r1"], [stubReplacement("p1", "c1", "r1")], 0, { mode: "prune" });
    expect(decidePure(tail, { type: "supersede", data: prune })).toHaveLength(1);
  });

  it("refuses supersede data that fails the schema with VALIDATION", () => {
    const command = { type: "supersede", data: { ...supersedeData("k1", [], [], 0) } } satisfies SessionCommand;
    expectError(() => decideKnown(given(...exchange), command), "VALIDATION");
  });
});

describe("decide: insertion trims", () => {
  const batch = [assistantMessage("a1", "", ["c1"]), toolResult("r1", "c1", "a very long output")];
  const trimmed = (stubTokens: number): SessionCommand => ({
    type: "append-messages",
    messages: batch.map((message) => ({ message, tokens: 10 })),
    trims: [{ targetId: "r1", stub: { message: toolResult("t1", "c1", "[trimmed]"), tokens: stubTokens } }],
  });

  it("records the appends and one trim supersede placing the stub where the result stands", () => {
    const events = decidePure(given(append(userMessage("u1", "go"))), trimmed(2));
    expect(events.map((e) => e.type)).toEqual(["message.appended", "message.appended", "messages.superseded"]);
  });

  it("refuses a trim whose supersede event fails the schema with VALIDATION", () => {
    expectError(() => decideKnown(given(append(userMessage("u1", "go"))), trimmed(-1)), "VALIDATION");
  });
});

describe("decide is pure", () => {
  it("returns fresh events that share no mutable state with the caller's state", () => {
    const state = given(...exchange);
    const events: DomainEvent[] = decidePure(state, append(userMessage("u3", "more")));
    expect(events[0]?.type).toBe("message.appended");
    expect(liveIds(state)).not.toContain("u3");
  });
});
