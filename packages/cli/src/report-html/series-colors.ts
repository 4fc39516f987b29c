/** Line colours of the series, in order (distinct for colour-blind readers: Okabe–Ito). */
const PALETTE = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000"];

/** The colour of the `index`-th series (the palette repeats past its end). */
export function seriesColor(index: number): string {
  return PALETTE[index % PALETTE.length] ?? "#000000";
}

/** The colour of the provider's real prompt tokens line. */
export const REAL_USAGE_COLOR = "#7f7f7f";
