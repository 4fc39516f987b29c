import {
  type DomainEvent,
  decide,
  initialState,
  type Message,
  parseMessage,
  parseStoredEvent,
  type RawStoredEvent,
  type SessionState,
  type ValidationIssue,
  validateEvent,
} from "@palimpsest/core";
import { appendCommand, execute, knownKeysOf, startedData, toStoredEvents, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { expectError } from "../support/expect-error.ts";

/** Every object in `value`, itself included. */
function objectsIn(value: unknown, into: object[] = []): object[] {
  if (value === null || typeof value !== "object") return into;
  into.push(value);
  for (const child of Object.values(value)) objectsIn(child, into);
  return into;
}

/** A message as a caller builds it, with nested reasoning and metadata (opaque JSON zod passes through). */
function callerMessage(): Message {
  return {
    id: "a1",
    role: "assistant",
    content: [{ type: "text", text: "thinking done" }],
    toolCalls: [{ id: "c1", name: "read", arguments: '{"path":"a.txt"}' }],
    reasoning: { blocks: [{ type: "thinking", signature: "sig", nested: { deep: [1, { two: 2 }] } }] },
    metadata: { provider: { ids: ["x", "y"] }, items: [{ kind: "message", raw: { a: 1 } }] },
  };
}

function started(): SessionState {
  const state = initialState("s-valid");
  execute(state, { type: "start", data: startedData() });
  return state;
}

const appendOf = (message: Message) => decide(started(), appendCommand([message], 7), knownKeysOf(started()));

/** The message of a message.appended event. */
function messageOf(event: DomainEvent | undefined): Message {
  if (event?.type !== "message.appended") throw new Error("expected a message.appended event");
  return event.data.message;
}
const issuesOf = (fn: () => unknown) =>
  expectError(fn, "VALIDATION").details as { issues: ValidationIssue[]; path?: string };

describe("a message validated where it enters", () => {
  it("is returned frozen all the way down, and given back it is taken as it is", () => {
    const message = parseMessage(callerMessage(), "message");
    expect(message).toEqual(callerMessage());
    for (const object of objectsIn(message)) expect(Object.isFrozen(object)).toBe(true);
    expect(parseMessage(message, "message")).toBe(message);
  });

  it("is not parsed again by the decider nor by validateEvent: the events carry the very message, their data marked", () => {
    const message = parseMessage(callerMessage(), "message");
    const [event] = appendOf(message);
    expect(messageOf(event)).toBe(message);
    expect(Object.isFrozen(event?.data)).toBe(true);
    // the store's validateEvent takes the decided data as it is
    expect(validateEvent(event as DomainEvent).data).toBe(event?.data);
    // data built around the marked message is validated (tokens, turn), the message taken as it is
    const built = validateEvent({ type: "message.appended", data: { message, tokens: 3 } });
    expect(built.data).not.toBe(event?.data);
    expect(messageOf(built)).toBe(message);
  });

  it("an unmarked message is parsed (a copy, never the caller's objects) and refused with the errors it always had", () => {
    const input = callerMessage();
    const [event] = appendOf(input);
    expect(messageOf(event)).not.toBe(input);
    expect(messageOf(event)).toEqual(input);
    const bad = { id: "", role: "user", content: [{ type: "text", text: 5 }] } as unknown as Message;
    const decided = expectError(() => appendOf(bad), "VALIDATION");
    expect(decided.message).toBe("message 0 is invalid");
    expect(decided.details).toMatchObject({ path: "messages[0]" });
    expect((decided.details as { issues: ValidationIssue[] }).issues.map((i) => i.path)).toEqual([
      "id",
      "content[0].text",
    ]);
    const entered = issuesOf(() => parseMessage(bad, "messages[2]"));
    expect(entered.path).toBe("messages[2].id");
    expect(entered.issues.map((i) => i.path)).toEqual(["messages[2].id", "messages[2].content[0].text"]);
    const validated = issuesOf(() => validateEvent({ type: "message.appended", data: { message: bad, tokens: -1 } }));
    expect(validated.issues.map((i) => [i.path, i.code])).toEqual([
      ["message.id", "too_small"],
      ["message.content[0].text", "invalid_type"],
      ["tokens", "too_small"],
    ]);
  });

  it("never freezes the caller's objects, and shares none of them with what it returns", () => {
    const input = callerMessage();
    const callers = objectsIn(input);
    const message = parseMessage(input, "message");
    const [event] = appendOf(input);
    const validated = validateEvent({ type: "message.appended", data: { message: input, tokens: 1 } });
    for (const object of callers) expect(Object.isFrozen(object)).toBe(false);
    const returned = new Set([...objectsIn(message), ...objectsIn(event), ...objectsIn(validated)]);
    for (const object of callers) expect(returned.has(object)).toBe(false);
    // and the caller may still change its own message
    (input.metadata as { provider: { ids: string[] } }).provider.ids.push("z");
    expect(message.metadata).toEqual({ provider: { ids: ["x", "y"] }, items: [{ kind: "message", raw: { a: 1 } }] });
  });

  it("leaves a message with anything but plain JSON in it unfrozen and unmarked: it is parsed again downstream", () => {
    class Signature {
      constructor(readonly value: string) {}
    }
    const when = new Date(0);
    for (const input of [
      { ...userMessage("u1", "hi"), metadata: { when } },
      { ...userMessage("u2", "hi"), reasoning: { signature: new Signature("s") } },
    ]) {
      const message = parseMessage(input, "message");
      expect(Object.isFrozen(message)).toBe(false);
      expect(Object.isFrozen(when)).toBe(false);
      expect(parseMessage(message, "message")).not.toBe(message);
      const [event] = appendOf(message);
      expect(messageOf(event)).not.toBe(message);
      expect(Object.isFrozen(event?.data)).toBe(false);
      expect(validateEvent(event as never).data).not.toBe(event?.data);
    }
  });

  it("refuses circular or too deep metadata and reasoning with the error it always had, never copying a cycle", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = { back: cycle };
    let deep: unknown = {};
    for (let i = 0; i < 100; i++) deep = { deep };
    for (const [field, value] of [
      ["metadata", cycle],
      ["reasoning", cycle],
      ["metadata", deep],
      ["reasoning", [deep]],
    ] as const) {
      const input = { ...userMessage("u1", "hi"), [field]: value };
      const entered = issuesOf(() => parseMessage(input, "messages[0]"));
      expect(entered.issues).toEqual([
        { path: `messages[0].${field}`, code: "custom", message: "nested deeper than 64 levels (or circular)" },
      ]);
      const decided = issuesOf(() => appendOf(input));
      expect(decided.issues).toEqual([
        { path: field, code: "custom", message: "nested deeper than 64 levels (or circular)" },
      ]);
    }
  });

  it("a copy or a change of kind is not marked: a message's copy, and marked data under another type, are parsed", () => {
    const message = parseMessage(callerMessage(), "message");
    const [event] = appendOf(message);
    const copy = { ...(event?.data as object) };
    expect(validateEvent({ type: "message.appended", data: copy }).data).not.toBe(copy);
    expect(issuesOf(() => validateEvent({ type: "turn.completed", data: event?.data })).path).toBe("turnId");
    // a marked message is not the data of a message.appended event
    expect(issuesOf(() => validateEvent({ type: "message.appended", data: message })).path).toBe("message");
  });

  it("a stored event read back is neither frozen nor marked", () => {
    const raw = toStoredEvents("s1", [
      { type: "message.appended", data: { message: callerMessage(), tokens: 3 } },
    ])[0] as RawStoredEvent;
    const read = parseStoredEvent(raw);
    for (const object of objectsIn(read)) expect(Object.isFrozen(object)).toBe(false);
    expect(validateEvent(read).data).not.toBe(read.data);
  });
});
