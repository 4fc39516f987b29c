/** The report's whole stylesheet, inlined in its <style>: system fonts only, nothing fetched. */
export const REPORT_CSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b; margin: 24px auto; max-width: 1000px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; } h3 { font-size: 14px; margin: 14px 0 4px; }
.subtitle, .note { color: #555; margin: 0 0 8px; }
svg { display: block; max-width: 100%; height: auto; }
.grid { stroke: #e6e6e6; } .axis { stroke: #444; }
.tick { font-size: 11px; fill: #444; } .axis-label { font-size: 12px; fill: #222; }
.series-line, .real-line { fill: none; stroke-linejoin: round; }
.real-line { stroke-dasharray: 5 4; stroke-width: 1.3; }
.compaction-mark { stroke: #fff; stroke-width: 1.5; }
.legend li { white-space: nowrap; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 6px 0 0; padding: 0; list-style: none; font-size: 13px; }
.swatch { display: inline-block; width: 18px; height: 3px; vertical-align: middle; margin-right: 6px; }
.swatch-line { display: inline-block; vertical-align: middle; margin-right: 6px; }
.coincide-note { font-style: italic; }
.swatch.dot { width: 9px; height: 9px; border-radius: 50%; background: #555; }
.cache-hit { fill: #2a9d55; } .cache-miss { fill: #c9c9c9; } .cache-break { fill: #d62828; } .cache-unknown { fill: #f1f1f1; }
table.data { border-collapse: collapse; margin: 8px 0 4px; font-size: 13px; }
table.data caption { text-align: left; font-weight: 600; padding: 4px 0; }
table.data th, table.data td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: left; white-space: nowrap; }
table.data th { background: #f5f5f5; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.bar-cell { width: 220px; } .bar { display: block; height: 10px; min-width: 1px; }
.bar.negative { opacity: 0.45; }
.table-scroll { overflow-x: auto; }
`;
