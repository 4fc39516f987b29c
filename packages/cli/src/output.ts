import { stripVTControlCharacters } from "node:util";
import stringWidth from "string-width";
import type { CliIo } from "./cli-io.ts";

/** Global options every command sees. */
export interface GlobalOptions {
  db?: string;
  tenant?: string;
  /** The local keyring's folder (docs/encryption.md). */
  keyring?: string;
  json?: boolean;
}

/** Prints `data` on the run's stdout: as JSON when `--json` is set, otherwise the readable text `render` makes of it. */
export function emit<T>(io: CliIo, options: GlobalOptions, data: T, render: (data: T) => string): void {
  io.stdout(options.json === true ? `${JSON.stringify(data, null, 2)}\n` : `${render(data)}\n`);
}

/**
 * A plain left-aligned text table with a header row, padded by the width a terminal shows (wide CJK
 * characters and emoji take two columns, combining marks none), not by string length. Cells are
 * terminalText: a title or name from a transcript cannot colour, move or clear the terminal.
 */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows].map((row) => row.map((cell) => terminalText(String(cell))));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => stringWidth(row[i] ?? ""))));
  return cells
    .map((row) =>
      row
        .map((c, i) => c + " ".repeat(Math.max(0, (widths[i] ?? 0) - stringWidth(c))))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/**
 * Text safe to print on a terminal: escape sequences (colours, cursor moves, OSC titles) removed, line breaks and
 * tabs as spaces, and every other control character (bell, backspace, NUL, C1 codes) dropped.
 */
export function terminalText(text: string): string {
  return stripVTControlCharacters(text)
    .replace(/[\t\n\v\f\r]/g, " ")
    .replace(/\p{Cc}/gu, "");
}

/** Shortens text to one line of at most `max` characters (terminalText, so a cut never splits an escape), for previews. */
export function preview(text: string, max = 100): string {
  const line = terminalText(text).replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** `n` with its noun, singular for one: "1 compaction", "3 compactions". */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
