import type { SessionKey } from "@anthropic-ai/claude-agent-sdk";
import {
  checkBytes,
  definedFields,
  isWellFormedId,
  MIRROR_LIMITS,
  type MirrorKey,
  ValidationError,
} from "@palimpsest/core";

/**
 * The mirror key of an SDK session key, checked: `projectKey` and `sessionId` non-empty strings,
 * `subpath` absent (the main transcript) or a non-empty string, none holding NUL or a lone surrogate, none
 * over its limit in UTF-8 bytes (MIRROR_LIMITS: 1024, 256 and 512). ValidationError otherwise.
 */
export function toMirrorKey(key: unknown, name = "key"): MirrorKey {
  if (key === null || typeof key !== "object") throw invalid(name, "a session key must be an object");
  const { projectKey, sessionId, subpath } = key as Record<string, unknown>;
  text(projectKey, `${name}.projectKey`, MIRROR_LIMITS.project);
  text(sessionId, `${name}.sessionId`, MIRROR_LIMITS.session);
  if (subpath !== undefined) text(subpath, `${name}.subpath`, MIRROR_LIMITS.subpath);
  return {
    project: projectKey as string,
    session: sessionId as string,
    ...(subpath === undefined ? {} : { subpath: subpath as string }),
  };
}

/** A project key, checked as in toMirrorKey. */
export function toProjectKey(projectKey: unknown): string {
  text(projectKey, "projectKey", MIRROR_LIMITS.project);
  return projectKey as string;
}

/** An SDK session id alone, checked as a key's `sessionId` is in toMirrorKey. */
export function toSessionId(sessionId: unknown): string {
  text(sessionId, "sessionId", MIRROR_LIMITS.session);
  return sessionId as string;
}

function text(value: unknown, path: string, limit: number): void {
  if (typeof value !== "string" || value.length === 0) throw invalid(path, "must be a non-empty string");
  // A key is stored as a database key: PostgreSQL text holds no NUL, and UTF-8 no lone surrogate.
  if (!isWellFormedId(value)) throw invalid(path, "must be well-formed text without NUL");
  // And in btree indexes, whose rows PostgreSQL caps (see MIRROR_LIMITS).
  checkBytes(value, limit, path);
}

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`${path}: ${message}`, [`${path}: ${message}`], { path });
}

/** The SDK's key for a mirror key (the inverse of toMirrorKey). */
export function toSdkKey(key: MirrorKey): SessionKey {
  return {
    projectKey: key.project,
    sessionId: key.session,
    ...definedFields({ subpath: key.subpath }),
  };
}
