/** Prints `data` on the run's stdout: as JSON when `--json` is set, otherwise the readable text `render` makes of it. */
export function emit(io, options, data, render) {
  io.stdout(options.json === true ? `${JSON.stringify(data, null, 2)}\n` : `${render(data)}\n`);
}
/** A plain left-aligned text table with a header row. */
export function table(header, rows) {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  return cells
    .map((row) =>
      row
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
/** Shortens text to one line of at most `max` characters, for previews. */
export function preview(text, max = 100) {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
/** `n` with its noun, singular for one: "1 compaction", "3 compactions". */
export function counted(n, noun, plural = `${noun}s`) {
  return `${n} ${n === 1 ? noun : plural}`;
}
//# sourceMappingURL=output.js.map
