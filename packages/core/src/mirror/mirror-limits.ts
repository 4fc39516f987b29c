import { ValidationError } from "../errors.ts";

/**
 * The most UTF-8 bytes each name of a mirrored transcript may take: its project, its session, its subpath
 * and an entry's uuid key (mirrorUuidKey: a uuid as it is, or escaped). PostgreSQL refuses a btree index
 * row over 2,704 bytes, and the widest index of the mirror tables (`mirror_entries_uuid`: project,
 * session, subpath, generation and uuid) holds all four: at their limits its row is under 2,100 bytes
 * (4 bytes of length and up to 3 of alignment per column, 8 of header), whatever the text and with no
 * compression. SQLite has no such limit; checking both engines alike, data one engine takes the other
 * takes too. Claude Code's project keys are sanitized paths of at most about 210 characters (longer ones
 * are cut at 200 and given a hash), its session ids and uuids 36-character UUIDs, its subpaths
 * `subagents/agent-<id>`.
 */
export const MIRROR_LIMITS = { project: 1024, session: 256, subpath: 512, uuid: 256 } as const;

/** The UTF-8 bytes of `text`, as PostgreSQL stores it (a lone surrogate counts 3: the drivers write U+FFFD). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** ValidationError at `path` when `text` takes more than `limit` UTF-8 bytes. */
export function checkBytes(text: string, limit: number, path: string): void {
  const bytes = utf8Bytes(text);
  if (bytes <= limit) return;
  const message = `${path}: at most ${limit} bytes of UTF-8, got ${bytes}`;
  throw new ValidationError(message, [{ path, code: "too_big", message }], { path });
}
