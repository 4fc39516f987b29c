import type { ValidationIssue } from "../errors.ts";

/** A zod issue path as a caller writes it: `messages[0].content[1].text`. */
export function formatPath(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out.length === 0 ? String(key) : `.${String(key)}`;
  }
  return out.length === 0 ? "(root)" : out;
}

/** What describeIssues reads of a zod error (any zod version: the SDKs bring their own). */
export interface ZodLikeError {
  issues: readonly { path: readonly PropertyKey[]; code: string; message: string }[];
}

/** A zod error's issues as ValidationIssues, each path under `base` (formatPath); the first `limit` only. */
export function describeIssues(error: ZodLikeError, base = "", limit = Number.POSITIVE_INFINITY): ValidationIssue[] {
  return error.issues
    .slice(0, limit)
    .map((issue) => ({ path: formatPath(base, issue.path), code: issue.code, message: issue.message }));
}
