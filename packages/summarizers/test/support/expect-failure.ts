import { SummarizerError } from "@palimpsest/core";
import { expect } from "vitest";

/** Awaits a promise that must reject with a SummarizerError, and returns the error. */
export async function expectSummarizerError(promise: Promise<unknown>): Promise<SummarizerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SummarizerError);
  return error as SummarizerError;
}
