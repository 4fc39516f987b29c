import { type SessionSummary, ValidationError } from "@palimpsest/core";

/** Sessions per page of the catalogue when no limit is given. */
export const DEFAULT_SESSION_PAGE_SIZE = 50;

/** The most sessions one page may hold. */
export const MAX_SESSION_PAGE_SIZE = 1_000;

/** Where a page of the session catalogue starts: opaque text a SessionPage returned as `next`. */
export type SessionCursor = string;

/** Which page of the session catalogue to read (newest first). */
export interface SessionPageOptions {
  /** At most this many sessions, 1 to MAX_SESSION_PAGE_SIZE; default DEFAULT_SESSION_PAGE_SIZE. */
  limit?: number;
  /** Start just after the session this cursor (a page's `next`) stands on; default the newest. */
  after?: SessionCursor;
}

/** One page of the session catalogue, and the cursor of the next page (null on the last one). */
export interface SessionPage {
  /** The page's sessions, newest first. */
  sessions: SessionSummary[];
  /** Where the next page starts (pass it as `after`), or null on the last page. */
  next: SessionCursor | null;
}

/** The catalogue position a cursor stands on: the last session of a page, by creation time then id. */
export interface SessionPosition {
  createdAt: string;
  sessionId: string;
}

/** The page size of `options`: the default when absent; ValidationError when not a whole number in range. */
export function sessionPageLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_SESSION_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SESSION_PAGE_SIZE) {
    throw new ValidationError(`a session page limit must be a whole number from 1 to ${MAX_SESSION_PAGE_SIZE}`, [
      `limit: ${limit}`,
    ]);
  }
  return limit;
}

/** The cursor just after `summary` (the last session of a page). */
export function encodeSessionCursor(summary: Pick<SessionSummary, "createdAt" | "sessionId">): SessionCursor {
  return Buffer.from(JSON.stringify([summary.createdAt, summary.sessionId]), "utf8").toString("base64url");
}

/** The position a cursor stands on; ValidationError for text no SessionPage returned. */
export function decodeSessionCursor(cursor: SessionCursor): SessionPosition {
  let parsed: unknown;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) : null;
  } catch {
    parsed = null;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 2 &&
    typeof parsed[0] === "string" &&
    typeof parsed[1] === "string" &&
    parsed[1].length > 0 &&
    !Number.isNaN(Date.parse(parsed[0]))
  ) {
    return { createdAt: parsed[0], sessionId: parsed[1] };
  }
  throw new ValidationError("not a session cursor: pass the `next` of an earlier page", [`after: ${cursor}`]);
}
