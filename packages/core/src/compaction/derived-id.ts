import { idHash } from "../input/bounded-id.ts";
import { safePrefix } from "./safe-cut.ts";

/**
 * Longest id derivedId makes: within ID_LIMITS.message and ID_LIMITS.compaction, and kept at 200 (the
 * message id limit when it was first written) so every id it derived before is derived the same again
 * (a keyed retry decides again and must come out identical).
 */
const MAX_ID = 200;

/**
 * A new message id derived from an existing one (`<id>~<tag>`), e.g. for the stub that replaces it.
 * Ids too long to extend are shortened to a prefix plus an FNV-1a hash of the whole id, so they stay distinct.
 */
export function derivedId(id: string, tag: string): string {
  const plain = `${id}~${tag}`;
  if (plain.length <= MAX_ID) return plain;
  const suffix = `#${idHash(id).toString(16)}~${tag}`;
  return `${safePrefix(id, MAX_ID - suffix.length)}${suffix}`;
}
