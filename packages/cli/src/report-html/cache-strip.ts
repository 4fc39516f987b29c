import { escapeHtml } from "./escape-html.ts";
import type { ReportSeries, RequestPoint } from "./report-data.ts";

const WIDTH = 960;
const ROW = 16;
const LABEL = 150;

type CacheState = "hit" | "miss" | "break" | "unknown";

/** What each row of the strip reads from a request: the provider's usage, and the cache model. */
const ROWS: readonly { name: string; state: (r: RequestPoint) => CacheState }[] = [
  {
    name: "provider cache read",
    state: (r) => (r.real === undefined ? "unknown" : r.real.cacheReadTokens > 0 ? "hit" : "miss"),
  },
  { name: "cache model", state: (r) => (r.model.cacheBreak ? "break" : r.model.cachedTokens > 0 ? "hit" : "miss") },
];

/**
 * Cache hits and breaks per request of one series as an inline SVG strip: a row for the provider's reported
 * cache reads (a hit when it read any) and a row for the cache model (hit, miss, or a break of the cached prefix).
 */
export function cacheStrip(series: ReportSeries): string {
  const n = series.requests.length;
  const first = series.requests[0]?.x ?? 1;
  const cell = (WIDTH - LABEL) / Math.max(1, n);
  const rows = ROWS.map((row, i) => {
    const runs = runsOf(series.requests.map(row.state));
    const rects = runs
      .map(
        (run) =>
          `<rect class="cache-${run.state}" x="${(LABEL + run.start * cell).toFixed(1)}" y="${i * (ROW + 4)}" width="${(run.length * cell).toFixed(1)}" height="${ROW}"><title>${escapeHtml(`${row.name}: ${run.state}, requests ${first + run.start}–${first + run.start + run.length - 1}`)}</title></rect>`,
      )
      .join("");
    return `<text class="tick" x="0" y="${i * (ROW + 4) + 12}">${row.name}</text>${rects}`;
  });
  const height = ROWS.length * (ROW + 4);
  return [
    `<svg class="cache-strip" role="img" aria-label="${escapeHtml(`cache hits and breaks per request: ${series.label}`)}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" xmlns="http://www.w3.org/2000/svg">`,
    ...rows,
    "</svg>",
  ].join("");
}

function runsOf(states: readonly CacheState[]): { state: CacheState; start: number; length: number }[] {
  const runs: { state: CacheState; start: number; length: number }[] = [];
  for (const [i, state] of states.entries()) {
    const last = runs.at(-1);
    if (last?.state === state) last.length += 1;
    else runs.push({ state, start: i, length: 1 });
  }
  return runs;
}
