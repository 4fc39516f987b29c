import type { z } from "zod";
import { ValidationError } from "../errors.ts";
import { describeIssues, formatPath } from "./describe-issues.ts";
import { checkIdLength, type IdKind } from "./id-limits.ts";
import { IdSchema } from "./id-schema.ts";

/**
 * Parses caller input with `schema`, or throws ValidationError naming `what` with `details.path` at the
 * first bad field (under `base`, e.g. `messages[2]`) and one issue per zod issue (describeIssues).
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string, base = ""): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = describeIssues(parsed.error, base);
  const first = issues[0];
  const path = first?.path ?? formatPath(base, []);
  throw new ValidationError(`invalid ${what}: ${first === undefined ? path : `${path}: ${first.message}`}`, issues, {
    cause: parsed.error,
    path,
  });
}

/**
 * Checks one id a caller gave (see IdSchema); ValidationError with `details.path` = `path` when it is not
 * one. With `kind`, an id a write creates, it must also be within that kind's length limit (ID_LIMITS);
 * an id that only names something (a read, a target) is not held to it, so what an older version stored
 * stays reachable.
 */
export function checkId(value: unknown, path: string, kind?: IdKind): string {
  const id = parseInput(IdSchema, value, "id", path);
  if (kind !== undefined) checkIdLength(kind, id, path);
  return id;
}
