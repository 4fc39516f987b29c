import { linearScale, type Scale, shortNumber, ticks } from "./chart-scale.ts";
import { escapeHtml } from "./escape-html.ts";
import { type LineStyle, lineStyles, type RealUsageLine, realUsageLines } from "./line-styles.ts";
import type { CompactionPoint, ReportSeries } from "./report-data.ts";

const WIDTH = 960;
const HEIGHT = 380;
const M = { left: 72, right: 16, top: 16, bottom: 48 };

/**
 * The prompt-token chart as inline SVG: x = request, y = prompt tokens, one line per series (dropping at
 * each compaction, styled by lineStyles so coinciding series stay visible), the provider's real prompt tokens
 * dashed (one line per distinct usage: each session's own, once for a replay's policies, which share theirs),
 * and exactly one `.compaction-mark` per compaction.
 */
export function promptChart(series: readonly ReportSeries[]): string {
  const styled = lineStyles(series);
  const real = realUsageLines(series);
  const maxX = Math.max(1, ...series.flatMap((s) => s.requests.map((r) => r.x)));
  const maxY = Math.max(
    1,
    ...series.flatMap((s) => [
      ...s.requests.map((r) => Math.max(r.viewTokens, r.real?.promptTokens ?? 0)),
      ...s.compactions.map((c) => c.promptBefore),
    ]),
  );
  const yTicks = ticks(maxY, 6);
  const x = linearScale(maxX + 1, M.left, WIDTH - M.right);
  const y = linearScale(yTicks.at(-1) ?? maxY, HEIGHT - M.bottom, M.top);
  const marks = series.reduce((n, s) => n + s.compactions.length, 0);
  const desc =
    `Prompt tokens per provider request for ${series.map((s) => s.label).join(", ")}` +
    `${real.length === 0 ? "" : ", with the provider's real prompt tokens dashed"}; ${marks} compactions marked.`;
  return [
    `<svg class="prompt-chart" role="img" aria-labelledby="chart-title chart-desc" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" xmlns="http://www.w3.org/2000/svg">`,
    `<title id="chart-title">Prompt tokens per request</title>`,
    `<desc id="chart-desc">${escapeHtml(desc)}</desc>`,
    axes(x, y, ticks(maxX, 10), yTicks),
    ...real.map((r) => realLine(r, x, y)),
    ...styled.map(({ series: s, style }) => viewLine(s, style, x, y)),
    ...styled.map(({ series: s, style }) => s.compactions.map((c) => compactionMark(s.label, c, style, x, y)).join("")),
    "</svg>",
  ].join("\n");
}

function axes(x: Scale, y: Scale, xTicks: readonly number[], yTicks: readonly number[]): string {
  const bottom = HEIGHT - M.bottom;
  const grid = yTicks
    .map(
      (v) =>
        `<line class="grid" x1="${M.left}" x2="${WIDTH - M.right}" y1="${y(v)}" y2="${y(v)}"/>` +
        `<text class="tick" x="${M.left - 6}" y="${y(v) + 4}" text-anchor="end">${shortNumber(v)}</text>`,
    )
    .join("");
  const xs = xTicks
    .filter((v) => v > 0)
    .map(
      (v) =>
        `<line class="axis" x1="${x(v)}" x2="${x(v)}" y1="${bottom}" y2="${bottom + 5}"/>` +
        `<text class="tick" x="${x(v)}" y="${bottom + 18}" text-anchor="middle">${v}</text>`,
    )
    .join("");
  return [
    `<g class="axes">${grid}${xs}`,
    `<line class="axis" x1="${M.left}" x2="${WIDTH - M.right}" y1="${bottom}" y2="${bottom}"/>`,
    `<line class="axis" x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${bottom}"/>`,
    `<text class="axis-label" x="${(M.left + WIDTH - M.right) / 2}" y="${HEIGHT - 8}" text-anchor="middle">provider request (turn)</text>`,
    `<text class="axis-label" transform="translate(16 ${(M.top + bottom) / 2}) rotate(-90)" text-anchor="middle">prompt tokens</text>`,
    "</g>",
  ].join("");
}

/**
 * The view's tokens at each request, with each compaction drawn where it ran: up to its tokens before, straight
 * down to its tokens after (the sawtooth), then on to the next request. A new session starts a new line.
 */
function viewLine(s: ReportSeries, style: LineStyle, x: Scale, y: Scale): string {
  const steps = [
    ...s.requests.map((r) => ({ x: r.x, d: `${r.firstOfSession === true ? "M" : "L"}${x(r.x)} ${y(r.viewTokens)}` })),
    ...s.compactions.map((c) => ({ x: c.x, d: `L${x(c.x)} ${y(c.promptBefore)}L${x(c.x)} ${y(c.promptAfter)}` })),
  ].sort((a, b) => a.x - b.x);
  const d = steps.map((step) => step.d).join("");
  if (d === "") return "";
  const path = d.startsWith("M") ? d : `M${d.slice(1)}`;
  const same = style.coincidesWith;
  const title = `${s.label}: prompt tokens${same.length === 0 ? "" : ` (the same line as ${same.join(", ")})`}`;
  return (
    `<path class="series-line" data-series="${escapeHtml(s.label)}" d="${path}" stroke="${style.color}"` +
    ` stroke-width="${style.width}"${style.dash ? ` stroke-dasharray="${style.dash}"` : ""}><title>${escapeHtml(title)}</title></path>`
  );
}

/** The real prompt tokens where the log has them; a request without usage breaks the line. */
function realLine(line: RealUsageLine, x: Scale, y: Scale): string {
  let d = "";
  let open = false;
  for (const r of line.requests) {
    if (r.real === undefined) {
      open = false;
      continue;
    }
    d += `${open && r.firstOfSession !== true ? "L" : "M"}${x(r.x)} ${y(r.real.promptTokens)}`;
    open = true;
  }
  const labels = escapeHtml(line.labels.join(", "));
  return `<path class="real-line" data-series="${labels}" d="${d}" stroke="${line.color}"><title>${labels}: provider's real prompt tokens</title></path>`;
}

function compactionMark(label: string, c: CompactionPoint, style: LineStyle, x: Scale, y: Scale): string {
  const tip = `${label}: ${c.mode} compaction after request ${c.x - 0.5}, ${c.tokensBefore} → ${c.tokensAfter} tokens (reclaimed ${c.tokensBefore - c.tokensAfter})`;
  return (
    `<circle class="compaction-mark" data-policy="${escapeHtml(label)}" data-mode="${escapeHtml(c.mode)}"${c.seq === undefined ? "" : ` data-seq="${c.seq}"`}` +
    ` cx="${x(c.x)}" cy="${y(c.promptBefore)}" r="${style.markRadius}" fill="${style.color}"><title>${escapeHtml(tip)}</title></circle>`
  );
}
