import { isPalimpsestError, type PalimpsestError } from "@palimpsest/core";

/** The error a promise rejects with (fails the test when it resolves or throws something else). */
export async function rejection(promise: Promise<unknown>): Promise<PalimpsestError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isPalimpsestError(error)) throw new Error(`expected a Palimpsest error, got ${String(error)}`);
  return error;
}
