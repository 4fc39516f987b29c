import type { z } from "zod";
import { ValidationError } from "../errors.ts";
import { IdSchema } from "./id-schema.ts";

/** A zod issue path as a caller writes it: `messages[0].content[1].text`. */
export function formatPath(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out.length === 0 ? String(key) : `.${String(key)}`;
  }
  return out.length === 0 ? "(root)" : out;
}

/**
 * Parses caller input with `schema`, or throws ValidationError naming `what` with `details.path` at the
 * first bad field (under `base`, e.g. `messages[2]`) and one `path: message` line per issue.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string, base = ""): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${formatPath(base, i.path)}: ${i.message}`);
  const first = parsed.error.issues[0];
  const path = formatPath(base, first?.path ?? []);
  throw new ValidationError(`invalid ${what}: ${issues[0] ?? path}`, issues, { cause: parsed.error, path });
}

/** Checks one id a caller gave (see IdSchema); ValidationError with `details.path` = `path` when it is not one. */
export function checkId(value: unknown, path: string): string {
  return parseInput(IdSchema, value, "id", path);
}
