/**
 * A cut index moved off the middle of a surrogate pair (back by one), so neither side of the cut keeps
 * half a character. The index is first clamped to the text.
 */
export function safeCut(text: string, index: number): number {
  const i = Math.max(0, Math.min(text.length, Math.floor(index)));
  if (i === 0 || i === text.length) return i;
  const before = text.charCodeAt(i - 1);
  const at = text.charCodeAt(i);
  return before >= 0xd800 && before <= 0xdbff && at >= 0xdc00 && at <= 0xdfff ? i - 1 : i;
}

/** The first `max` UTF-16 units of `text` at most, never ending in half a surrogate pair. */
export function safePrefix(text: string, max: number): string {
  return text.slice(0, safeCut(text, max));
}
