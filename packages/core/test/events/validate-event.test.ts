import {
  EVENT_KINDS,
  isPalimpsestError,
  parseStoredEvent,
  type RawStoredEvent,
  type ValidationIssue,
  validateEvent,
} from "@palimpsest/core";
import { startedData, toStoredEvents, userMessage } from "@palimpsest/testing";
import { describe, expect, it } from "vitest";
import { expectError } from "../support/expect-error.ts";

const issuesOf = (fn: () => unknown) => (expectError(fn, "VALIDATION").details as { issues: ValidationIssue[] }).issues;

describe("validateEvent", () => {
  it("accepts every kind's valid data and strips nothing it knows", () => {
    const data = { message: userMessage("u1", "hi"), tokens: 3, turnId: "t1" };
    expect(validateEvent({ type: "message.appended", data })).toEqual({ type: "message.appended", data });
    expect(validateEvent({ type: "session.started", data: startedData() }).data).toEqual(startedData());
  });

  it("rejects an unknown type, listing the known ones", () => {
    const issues = issuesOf(() => validateEvent({ type: "message.deleted", data: {} }));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: "type", code: "custom", message: expect.stringMatching(/^not one of /) });
    for (const kind of Object.keys(EVENT_KINDS)) expect(issues[0]?.message).toContain(kind);
  });

  it("rejects bad data with zod's issues, each with its path and code, and keeps the zod error as cause", () => {
    let caught: unknown;
    try {
      validateEvent({
        type: "message.appended",
        data: { message: { id: "", role: "user", content: [{ type: "text", text: 5 }] }, tokens: -1 },
      });
    } catch (error) {
      caught = error;
    }
    expect(isPalimpsestError(caught, "VALIDATION")).toBe(true);
    const error = caught as Error & { details: { issues: ValidationIssue[]; path?: string } };
    // the content part is discriminated by its type, so zod names the bad field inside it
    expect(error.details.issues.map((i) => i.path)).toEqual(["message.id", "message.content[0].text", "tokens"]);
    expect(error.details.issues.map((i) => i.code)).toEqual(["too_small", "invalid_type", "too_small"]);
    for (const issue of error.details.issues) expect(issue.message).not.toBe("");
    expect(error.details.path).toBe("message.id");
    expect(error.cause).toBeInstanceOf(Error);
    expect((error.cause as { issues?: unknown[] }).issues).toHaveLength(3);
  });

  it("names the refinement path of a tool message without toolCallId", () => {
    const issues = issuesOf(() =>
      validateEvent({ type: "message.appended", data: { message: { id: "t", role: "tool", content: [] }, tokens: 0 } }),
    );
    expect(issues.some((i) => i.path === "message.toolCallId")).toBe(true);
  });

  it("names the root when data is not an object", () => {
    expect(issuesOf(() => validateEvent({ type: "turn.completed", data: "t1" }))[0]?.path).toBe("(root)");
  });

  it("rejects a supersede without targets, naming `targets`", () => {
    const data = {
      compactionId: "k1",
      targets: [],
      replacements: [],
      mode: "summary",
      basis: { viewVersion: 0 },
      producer: { policy: "p" },
      stats: { tokensBefore: 1, tokensAfter: 0 },
      trigger: "manual",
    };
    expect(issuesOf(() => validateEvent({ type: "messages.superseded", data }))[0]?.path).toBe("targets");
  });
});

describe("parseStoredEvent", () => {
  const raw = (overrides: Partial<RawStoredEvent> = {}): RawStoredEvent => ({
    ...(toStoredEvents("s1", [{ type: "turn.completed", data: { turnId: "t1" } }])[0] as RawStoredEvent),
    ...overrides,
  });

  it("reads a current-version event as is", () => {
    expect(parseStoredEvent(raw())).toMatchObject({ type: "turn.completed", data: { turnId: "t1" }, schemaVersion: 1 });
  });

  it("rejects an unknown type in the log with VALIDATION naming seq and session", () => {
    expect(issuesOf(() => parseStoredEvent(raw({ type: "turn.exploded" })))).toEqual([
      { path: "", code: "custom", message: "seq 1 of s1" },
    ]);
  });

  it("rejects stored data that no longer validates", () => {
    expect(issuesOf(() => parseStoredEvent(raw({ data: { turnId: "" } })))[0]?.path).toBe("turnId");
  });

  it("rejects a schema version newer than this code", () => {
    expectError(() => parseStoredEvent(raw({ schemaVersion: 2 })), "VALIDATION");
  });
});
