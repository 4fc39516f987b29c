import { isPalimpsestError, StorageError } from "@palimpsest/core";

/** Runs a database operation; any error that is not already a Palimpsest error becomes a StorageError. */
export async function guardStorage<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isPalimpsestError(error)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new StorageError(operation, message, { cause: error });
  }
}
