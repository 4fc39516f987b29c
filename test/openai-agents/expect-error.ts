import { expect } from "vitest";
import { rejection } from "../support/rejection.ts";

/** Asserts `promise` rejects with a Palimpsest error of `code` (and `rule` / `path` in its details, when given). */
export async function expectRejection(
  promise: Promise<unknown>,
  expected: { code: string; rule?: string; path?: string },
): Promise<void> {
  const error = await rejection(promise);
  expect(error.code).toBe(expected.code);
  const details = error.details as { rule?: string; path?: string };
  if (expected.rule !== undefined) expect(details.rule).toBe(expected.rule);
  if (expected.path !== undefined) expect(details.path).toBe(expected.path);
}
