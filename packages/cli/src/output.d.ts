import type { CliIo } from "./cli-io.ts";
/** Global options every command sees. */
export interface GlobalOptions {
  db?: string;
  json?: boolean;
}
/** Prints `data` on the run's stdout: as JSON when `--json` is set, otherwise the readable text `render` makes of it. */
export declare function emit<T>(io: CliIo, options: GlobalOptions, data: T, render: (data: T) => string): void;
/** A plain left-aligned text table with a header row. */
export declare function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string;
/** Shortens text to one line of at most `max` characters, for previews. */
export declare function preview(text: string, max?: number): string;
/** `n` with its noun, singular for one: "1 compaction", "3 compactions". */
export declare function counted(n: number, noun: string, plural?: string): string;
