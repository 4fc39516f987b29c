import { safePrefix } from "./safe-cut.ts";

/** Longest message id the schema accepts. */
const MAX_ID = 200;

/**
 * A new message id derived from an existing one (`<id>~<tag>`), e.g. for the stub that replaces it.
 * Ids too long to extend are shortened to a prefix plus an FNV-1a hash of the whole id, so they stay distinct.
 */
export function derivedId(id: string, tag: string): string {
  const plain = `${id}~${tag}`;
  if (plain.length <= MAX_ID) return plain;
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  const suffix = `#${hash.toString(16)}~${tag}`;
  return `${safePrefix(id, MAX_ID - suffix.length)}${suffix}`;
}
