import { errorNames } from "../messages/error-names.ts";
import { measuredNumbers } from "../messages/measured-numbers.ts";
import type { FidelityKind } from "./fidelity-kinds.ts";

/**
 * The text of a replacement (a summary, a rolling-summary marker, a prune stub) prepared for asking whether
 * it holds an item: user requests and commands must appear verbatim (line endings normalized), file paths
 * as a whole path or its last two or more segments (`lib/a/b.ex` holds `/home/u/proj/lib/a/b.ex`: the
 * project-relative form), never inside a longer name, error names as whole words, numbers canonically
 * (measuredNumbers of the text, so `16 ms` holds `16ms`).
 */
export class ReplacementText {
  private readonly text: string;
  private numbers: Set<string> | undefined;
  private errors: Set<string> | undefined;

  constructor(text: string) {
    this.text = text.replace(/\r\n?/g, "\n");
  }

  /** Whether this text holds `value` of `kind`. */
  holds(kind: FidelityKind, value: string): boolean {
    switch (kind) {
      case "userRequests":
      case "commands":
        return this.text.includes(value);
      case "filePaths":
        return pathForms(value).some((form) => containsBounded(this.text, form, PATH_BEFORE, PATH_AFTER));
      case "errorNames":
        this.errors ??= new Set(errorNames(this.text));
        return this.errors.has(value) || containsBounded(this.text, value, WORD, WORD);
      case "numbers":
        this.numbers ??= new Set(measuredNumbers(this.text));
        return this.numbers.has(value);
    }
  }
}

/** A path and its tails of two or more segments, longest first (`/a/b/c.ts`, `a/b/c.ts`, `b/c.ts`). */
function pathForms(path: string): string[] {
  const segments = path.split("/");
  const forms = [path];
  for (let i = 1; i < segments.length - 1; i += 1) {
    const tail = segments.slice(i).join("/");
    if (segments[i] !== "" && /[\w]/.test(segments[i] ?? "")) forms.push(tail);
  }
  return forms;
}

const WORD = /[\w]/;
/** A path may follow `/` (a relative path ending an absolute one) but not a name character. */
const PATH_BEFORE = /[\w.~-]/;
/** A path may be followed by sentence punctuation, not by more path. */
const PATH_AFTER = /[\w/~-]/;

/** Whether `text` contains `value` with no `before` character just before it and no `after` character just after. */
function containsBounded(text: string, value: string, before: RegExp, after: RegExp): boolean {
  if (value.length === 0) return false;
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
    const prev = text[at - 1];
    const next = text[at + value.length];
    const nextAfter = text[at + value.length + 1];
    const nextIsPath =
      next !== undefined && (after.test(next) || (next === "." && nextAfter !== undefined && /\w/.test(nextAfter)));
    if ((prev === undefined || !before.test(prev)) && !nextIsPath) return true;
  }
  return false;
}
