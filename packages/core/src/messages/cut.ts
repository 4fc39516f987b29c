/** A cut marker as capText writes it, on its own lines (block) or inline; group 1 is the count it stands for. */
const MARKER = /[ \n]?\[… (\d+) chars omitted …\][ \n]?/g;

/** An existing marker: where it sits in the text and how many characters it stands for. */
interface Marker {
  start: number;
  end: number;
  count: number;
}

function markersIn(text: string): Marker[] {
  return [...text.matchAll(MARKER)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    count: Number(m[1]),
  }));
}

function marker(count: number, inline: boolean): string {
  const core = `[… ${count} chars omitted …]`;
  return inline ? ` ${core} ` : `\n${core}\n`;
}

/**
 * Keeps the head and the tail of `text` within `max` characters and puts one marker where the middle was:
 * `[… N chars omitted …]`, N being the characters of the original the marker stands for. A marker is
 * never nested: neither end of the cut falls inside an earlier marker, and earlier markers inside the cut
 * are folded into the new one (their counts added). The cut always removes more than the marker adds.
 * Idempotent: the result is at most `max` characters, so capping it again changes nothing (a cap too small
 * to hold a marker, under about 25 characters, keeps only the head). `inline`
 * writes the marker between spaces instead of on its own line (for one-line items).
 */
export function capText(text: string, max: number, inline = false): string {
  if (text.length <= max) return text;
  const markers = markersIn(text);
  const bound = text.length + markers.reduce((n, m) => n + m.count, 0);
  const room = max - marker(bound, inline).length;
  if (room < 2) return text.slice(0, Math.max(0, max));
  let head = Math.ceil(room / 2);
  let tail = text.length - (room - head);
  for (const m of markers) {
    if (head > m.start && head < m.end) head = m.start;
    if (tail > m.start && tail < m.end) tail = m.end;
  }
  const inside = markers.filter((m) => m.start >= head && m.end <= tail);
  const count = tail - head - inside.reduce((n, m) => n + (m.end - m.start - m.count), 0);
  return `${text.slice(0, head)}${marker(count, inline)}${text.slice(tail)}`;
}

/** Keeps the head of `text` within `max` characters, the rest replaced by one inline marker (never nested). */
export function capEnd(text: string, max: number): string {
  if (text.length <= max) return text;
  const bound = text.length + markersIn(text).reduce((n, m) => n + m.count, 0);
  let head = max - marker(bound, true).length + 1;
  if (head < 1) return text.slice(0, Math.max(0, max));
  for (const m of markersIn(text)) if (head > m.start && head < m.end) head = m.start;
  const inside = markersIn(text).filter((m) => m.start >= head);
  const count = text.length - head - inside.reduce((n, m) => n + (m.end - m.start - m.count), 0);
  return `${text.slice(0, head)}${marker(count, true).trimEnd()}`;
}

/** The first line of `text`, trimmed, its head kept within `max`; `(+N lines)` when more followed. */
export function firstLine(text: string, max: number): string {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const first = capEnd((lines[0] ?? "").trim(), max);
  return lines.length > 1 ? `${first} (+${lines.length - 1} lines)` : first;
}
