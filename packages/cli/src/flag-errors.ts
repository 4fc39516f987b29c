import { isPalimpsestError, ValidationError, type ValidationIssue } from "@palimpsest/core";

/**
 * Runs `work` and rethrows a library ValidationError about one of its options in the CLI's terms: when the
 * error's `details.path` is a key of `flags` (e.g. `{ atTurn: "--turn" }`), its message, its issues and its
 * path name the flag instead of the option. Any other error is rethrown as it is.
 */
export async function withFlagNames<T>(flags: Readonly<Record<string, string>>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isPalimpsestError(error, "VALIDATION")) throw error;
    const { path, issues } = error.details as { path?: string; issues?: readonly ValidationIssue[] };
    const flag = path === undefined ? undefined : flags[path];
    if (path === undefined || flag === undefined) throw error;
    const named = (text: string) => text.replace(new RegExp(`\\b${path}\\b`, "g"), flag);
    throw new ValidationError(
      named(error.message),
      (issues ?? []).map((issue) => ({ ...issue, path: named(issue.path), message: named(issue.message) })),
      { path: flag },
    );
  }
}
