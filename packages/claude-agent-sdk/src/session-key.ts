import { ValidationError } from "@palimpsest/core";
import type { MirrorKey } from "@palimpsest/store";

/**
 * The mirror key of an SDK session key, checked: `projectKey` and `sessionId` non-empty strings,
 * `subpath` absent (the main transcript) or a non-empty string, none holding NUL or a lone surrogate.
 * ValidationError otherwise.
 */
export function toMirrorKey(key: unknown, name = "key"): MirrorKey {
  if (key === null || typeof key !== "object") throw invalid(name, "a session key must be an object");
  const { projectKey, sessionId, subpath } = key as Record<string, unknown>;
  text(projectKey, `${name}.projectKey`);
  text(sessionId, `${name}.sessionId`);
  if (subpath !== undefined) text(subpath, `${name}.subpath`);
  return {
    project: projectKey as string,
    session: sessionId as string,
    ...(subpath === undefined ? {} : { subpath: subpath as string }),
  };
}

/** A project key, checked as in toMirrorKey. */
export function toProjectKey(projectKey: unknown): string {
  text(projectKey, "projectKey");
  return projectKey as string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function text(value: unknown, path: string): void {
  if (typeof value !== "string" || value.length === 0) throw invalid(path, "must be a non-empty string");
  // A key is stored as a database key: PostgreSQL text holds no NUL, and UTF-8 no lone surrogate.
  if (value.includes("\u0000") || LONE_SURROGATE.test(value))
    throw invalid(path, "must be well-formed text without NUL");
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`${path}: ${message}`, [`${path}: ${message}`], { path });
}
