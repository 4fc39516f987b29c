import type { ErrorCode, InvariantRule, SessionCommand, SessionState } from "@palimpsest/core";
import { decide, PalimpsestError } from "@palimpsest/core";
import { knownKeysOf } from "@palimpsest/testing";
import { expect } from "vitest";

/** Runs `fn`, expects a PalimpsestError of `code`, and returns it for further checks. */
export function expectError(fn: () => unknown, code: ErrorCode): PalimpsestError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, "expected a PalimpsestError to be thrown").toBeInstanceOf(PalimpsestError);
  const error = thrown as PalimpsestError;
  expect(error.code).toBe(code);
  return error;
}

/**
 * Decides `command` on `state`, expects an InvariantViolation with `rule`, and checks that deciding
 * left the state exactly as it was. Returns the error's details.
 */
export function expectViolation(state: SessionState, command: SessionCommand, rule: InvariantRule) {
  const before = structuredClone(state);
  const error = expectError(() => decide(state, command, knownKeysOf(state)), "INVARIANT_VIOLATED");
  expect(error.details.rule).toBe(rule);
  expect(state).toStrictEqual(before);
  return error.details as { rule: InvariantRule; sessionId?: string; ids?: readonly string[] };
}

/** Decides `command` and checks that deciding did not touch the state; returns the events. */
export function decidePure(state: SessionState, command: SessionCommand) {
  const before = structuredClone(state);
  const events = decide(state, command, knownKeysOf(state));
  expect(state).toStrictEqual(before);
  return events;
}
