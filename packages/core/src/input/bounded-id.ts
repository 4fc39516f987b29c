/** FNV-1a (32 bits) of a text's UTF-16 units: the hash that keeps shortened ids distinct. */
export function idHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/**
 * `id` when it is at most `max` UTF-16 units long; otherwise a prefix of it and `#<hash of all of it>`,
 * `max` units at most, never ending in half a surrogate pair: how an id derived from another one
 * (`trim:<id>`) stays within its kind's limit (ID_LIMITS) and distinct.
 */
export function boundedId(id: string, max: number): string {
  if (id.length <= max) return id;
  const suffix = `#${idHash(id).toString(16)}`;
  let cut = max - suffix.length;
  const last = id.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return `${id.slice(0, cut)}${suffix}`;
}
