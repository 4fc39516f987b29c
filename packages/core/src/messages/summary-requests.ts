/**
 * How a summary keeps the user's requests: verbatim, each fenced, in its User Requests section, a
 * `[request n · id]` line before each. The summary format reads them back (summary/summary-format.ts,
 * parseDoc) and cost-optimal's summary need counts the ones an earlier summary holds
 * (compaction/summary-need.ts) with the same reader: here, below both folders.
 */

/** The title of the section that holds the requests. */
export const REQUESTS_TITLE = "User Requests";

/** A request's header line: `[request n]` or `[request n · id]` (the id of the message it came from). */
export const REQUEST_HEADER = /^\[request (\d+)(?: · (.+))?\]$/;

/** An opening fence: three or more backticks, perhaps an info string (a model may write ```text). */
export const FENCE = /^(`{3,})[\w+-]*$/;

/** A request a summary holds: its text, and the id of its message when its header names one. */
export interface HeldRequest {
  id?: string;
  text: string;
}

/** A `## ` section of a summary: its title (undefined for the lines before the first heading) and its lines. */
export interface SummarySection {
  title: string | undefined;
  lines: string[];
}

/**
 * A summary's sections, in order, several summaries one after the other included: a `## ` heading opens
 * one unless it is inside a request's fence (a request may hold a heading of its own).
 */
export function summarySections(summary: string): SummarySection[] {
  const sections: SummarySection[] = [];
  let current: SummarySection = { title: undefined, lines: [] };
  let fence: string | undefined;
  for (const line of summary.replace(/\r\n/g, "\n").split("\n")) {
    if (fence !== undefined) {
      if (line === fence) fence = undefined;
      current.lines.push(line);
      continue;
    }
    const opening = current.title === REQUESTS_TITLE ? FENCE.exec(line)?.[1] : undefined;
    if (opening !== undefined) fence = opening;
    const heading = /^##\s+(.+?)\s*$/.exec(line);
    if (heading !== null && opening === undefined) {
      sections.push(current);
      current = { title: heading[1] ?? "", lines: [] };
      continue;
    }
    current.lines.push(line);
  }
  sections.push(current);
  return sections;
}

/** The fenced requests of a User Requests section's lines (a header line before a fence names its id); other lines are skipped. */
export function readRequests(lines: readonly string[]): HeldRequest[] {
  const requests: HeldRequest[] = [];
  let id: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const header = REQUEST_HEADER.exec(line);
    if (header !== null) {
      id = header[2];
      continue;
    }
    const fence = FENCE.exec(line)?.[1];
    if (fence === undefined) continue;
    const close = lines.indexOf(fence, i + 1);
    const end = close === -1 ? lines.length : close;
    const text = lines.slice(i + 1, end).join("\n");
    requests.push(id === undefined ? { text } : { id, text });
    id = undefined;
    i = end;
  }
  return requests;
}

/** The texts of the requests `summary` holds: those of its User Requests sections, as the summary format reads them. */
export function summaryRequestTexts(summary: string): string[] {
  return summarySections(summary)
    .filter((section) => section.title === REQUESTS_TITLE)
    .flatMap((section) => readRequests(section.lines).map((request) => request.text));
}
