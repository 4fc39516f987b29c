/** One `## Title` section of a summary: bullet items (`list`) or free text kept line by line (`text`). */
export interface SummarySection {
  title: string;
  kind: "list" | "text";
  /** List items (may span lines) or text lines, oldest first. */
  items: string[];
}

const HEADING = /^##\s+(.+?)\s*$/;

/**
 * Splits a summary into its `##` sections; titles in `listTitles` are read as bullet lists. Text before the
 * first heading (a wrapper's prefix) is dropped; a summary without headings becomes one text section.
 */
export function parseSections(
  summary: string,
  listTitles: ReadonlySet<string>,
  fallbackTitle: string,
): SummarySection[] {
  const lines = summary.replace(/\r\n/g, "\n").split("\n");
  if (!lines.some((l) => HEADING.test(l))) {
    const text = summary.trim();
    return text.length === 0 ? [] : [{ title: fallbackTitle, kind: "text", items: text.split("\n") }];
  }
  const sections: SummarySection[] = [];
  let current: SummarySection | undefined;
  for (const line of lines) {
    const heading = HEADING.exec(line);
    if (heading !== null) {
      const title = heading[1] ?? "";
      current = { title, kind: listTitles.has(title) ? "list" : "text", items: [] };
      sections.push(current);
    } else if (current !== undefined) {
      addLine(current, line);
    }
  }
  for (const section of sections) {
    while (section.items.length > 0 && (section.items.at(-1) ?? "").trim() === "") section.items.pop();
  }
  return sections;
}

/** Appends one line: a new item, a continuation of the last item, or a text line. */
function addLine(section: SummarySection, line: string): void {
  if (section.kind === "text") {
    if (line.trim() !== "" || section.items.length > 0) section.items.push(line);
    return;
  }
  if (line.trim() === "") return;
  const last = section.items.length - 1;
  if (line.startsWith("  ") && last >= 0) {
    section.items[last] = `${section.items[last] ?? ""}\n${line.slice(2)}`;
    return;
  }
  section.items.push(line.replace(/^\s*[-*]\s+/, "").trim());
}

/** Renders sections back to text: `## Title`, then `- item` lines (continuations indented) or text lines. */
export function renderSections(sections: readonly SummarySection[]): string {
  const blocks: string[] = [];
  for (const section of sections) {
    if (section.items.length === 0) continue;
    const body =
      section.kind === "list"
        ? section.items.map((item) => `- ${item.replace(/\n/g, "\n  ")}`).join("\n")
        : section.items.join("\n");
    blocks.push(`## ${section.title}\n${body}`);
  }
  return blocks.join("\n\n");
}
