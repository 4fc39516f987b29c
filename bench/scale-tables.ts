/**
 * The scale bench's Markdown tables: each figure with its ratio to the first size of its engine and
 * layout; with a partitioned run, its figures beside the plain run's.
 */
import { layoutName } from "./databases.ts";
import type { ScaleRow } from "./scale.ts";
import type { TableBytes } from "./scale-load.ts";
import { markdownTable, ms, num, ratio } from "./stats.ts";

/** The first row of each engine and layout, which every other row of them is compared with. */
function firstOf(rows: readonly ScaleRow[]): (row: ScaleRow) => ScaleRow {
  return (row) => rows.find((r) => r.engine === row.engine && r.partitions === row.partitions) ?? row;
}

/** `value (ratio to the first size)`. */
function grown(now: number, first: number): string {
  return `${ms(now)} (${ratio(now / first)})`;
}

/** Bytes per event of the tables `pick` selects: rows (with TOAST) + indexes. */
function perEvent(row: ScaleRow, pick: (t: TableBytes) => boolean): string {
  const tables = row.tables.filter(pick);
  const rowBytes = tables.reduce((sum, t) => sum + t.rowBytes, 0) / row.events;
  const indexBytes = tables.reduce((sum, t) => sum + t.indexBytes, 0) / row.events;
  return `${num(rowBytes)} + ${num(indexBytes)}`;
}

/** Latencies at each size, the load itself, and bytes per event. */
export function scaleTables(rows: readonly ScaleRow[]): string {
  const first = firstOf(rows);
  const size = (r: ScaleRow) => [layoutName(r.engine, r.partitions), num(r.events), num(r.sessions)];
  const agent = markdownTable(
    [
      "engine",
      "events",
      "sessions",
      "append p50 / p99, old session",
      "append p50 / p99, new session",
      "resume p50 / p99, old session",
      "resume p50 / p99, new session",
    ],
    rows.map((r) => {
      const f = first(r);
      const pair = (now: ScaleRow["appendExisting"], then: ScaleRow["appendExisting"]) =>
        `${grown(now.p50, then.p50)} / ${grown(now.p99, then.p99)}`;
      return [
        ...size(r),
        pair(r.appendExisting, f.appendExisting),
        pair(r.appendFresh, f.appendFresh),
        pair(r.resumeExisting, f.resumeExisting),
        pair(r.resumeFresh, f.resumeFresh),
      ];
    }),
  );
  const reads = markdownTable(
    [
      "engine",
      "events",
      "first page (50)",
      "page from the middle",
      "audit: compactions of a session",
      "audit: a message's trail",
      "watcher: 1,000 new events",
    ],
    rows.map((r) => {
      const f = first(r);
      return [
        layoutName(r.engine, r.partitions),
        num(r.events),
        grown(r.firstPageMs, f.firstPageMs),
        grown(r.middlePageMs, f.middlePageMs),
        grown(r.auditCompactionsMs, f.auditCompactionsMs),
        grown(r.auditMessageMs, f.auditMessageMs),
        grown(r.watcherMs, f.watcherMs),
      ];
    }),
  );
  const storage = markdownTable(
    [
      "engine",
      "events",
      "load events/s",
      "audit catch-up events/s",
      "VACUUM ANALYZE, CHECKPOINT",
      "bytes / event: events",
      "log_keys",
      "snapshots",
      "sessions",
      "audit_*",
      "all tables",
    ],
    rows.map((r) => [
      layoutName(r.engine, r.partitions),
      num(r.events),
      num(r.loadPerSec),
      num(r.auditPerSec),
      r.engine === "postgres" ? ms(r.settleMs) : "–",
      perEvent(r, (t) => t.table === "events"),
      perEvent(r, (t) => t.table === "log_keys"),
      perEvent(r, (t) => t.table === "snapshots"),
      perEvent(r, (t) => t.table === "sessions"),
      perEvent(r, (t) => t.table.startsWith("audit_")),
      perEvent(r, () => true),
    ]),
  );
  const tables = [agent, reads, "Load, and bytes per event (rows with TOAST + indexes):", storage];
  const layouts = layoutComparison(rows);
  return [...tables, ...(layouts === undefined ? [] : ["Partitioned against plain, at each size:", layouts])].join(
    "\n\n",
  );
}

/**
 * Each partitioned PostgreSQL row beside the plain row of the same size step (the n-th of each): the
 * partitioned figure with its ratio to the plain one. Undefined when the run divided nothing.
 */
function layoutComparison(rows: readonly ScaleRow[]): string | undefined {
  const plain = rows.filter((r) => r.engine === "postgres" && r.partitions === 0);
  const divided = rows.filter((r) => r.engine === "postgres" && r.partitions > 0);
  if (divided.length === 0 || plain.length === 0) return undefined;
  const versus = (now: number, base: number) => `${ms(now)} (${ratio(now / base)})`;
  return markdownTable(
    [
      "layout",
      "events",
      "append p50, old session",
      "resume p50, old session",
      "first page",
      "audit: compactions",
      "watcher",
      "load events/s",
    ],
    divided.flatMap((r, step) => {
      const base = plain[step];
      if (base === undefined) return [];
      return [
        [
          layoutName(r.engine, r.partitions),
          num(r.events),
          versus(r.appendExisting.p50, base.appendExisting.p50),
          versus(r.resumeExisting.p50, base.resumeExisting.p50),
          versus(r.firstPageMs, base.firstPageMs),
          versus(r.auditCompactionsMs, base.auditCompactionsMs),
          versus(r.watcherMs, base.watcherMs),
          `${num(r.loadPerSec)} (${ratio(r.loadPerSec / base.loadPerSec)})`,
        ],
      ];
    }),
  );
}
