import { ValidationError } from "@palimpsest/core";
import type { EngineOpener } from "./engine-opener.ts";
import { postgresOpener } from "./postgres/postgres-url.ts";
import { sqliteOpener } from "./sqlite/sqlite-url.ts";

/** Every engine the store opens, in the order their URLs are tried (a SQLite path is the fallback). */
export const ENGINE_OPENERS: readonly EngineOpener[] = [postgresOpener, sqliteOpener];

/**
 * The engine whose URL `url` is: `postgres://` or `postgresql://`; `:memory:` or `memory:`; `file:`
 * followed by a path or a file URL; or a plain file path. Any other scheme (`mysql://…`, `sqlite:…`) is
 * a ValidationError, never a file name: a path holding a colon needs `./`.
 */
export function openerFor(url: string): EngineOpener {
  const forms = ENGINE_OPENERS.flatMap((o) => o.forms);
  const accepted = `url: ${forms.slice(0, -1).join(", ")}, or ${forms.at(-1)}`;
  // Callers from JavaScript can pass anything: a URL that is no string is refused as such, not with a TypeError.
  if (typeof url !== "string") {
    throw new ValidationError(`the database URL must be a string, not ${describeValue(url)}`, [accepted], {
      path: "url",
    });
  }
  const opener = ENGINE_OPENERS.find((o) => o.matches(url));
  if (opener !== undefined) return opener;
  if (url.length === 0) throw new ValidationError("the database URL is empty", [accepted], { path: "url" });
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]+):/.exec(url)?.[1] ?? url;
  throw new ValidationError(`unknown database URL scheme ${scheme}: in ${url}`, [accepted], { path: "url" });
}

/** A value's kind as an error names it (`a number`, `null`, `an object`). */
function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
