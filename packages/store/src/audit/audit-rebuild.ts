import { type GlobalCheckpoint, ProjectionMoved } from "@palimpsest/core";
import { addAuditFacts, emptyAuditFacts } from "@palimpsest/projections";
import { guardStorage } from "../engine/storage-guard.ts";
import { AUDIT_PAGE_SIZE, type AuditProgress, catchUpAudit, readAuditCheckpoint } from "./audit-projector.ts";
import { AUDIT_ROW_TABLES, type AuditRowTable, auditRows } from "./audit-rows.ts";
import type { AuditSource } from "./audit-source.ts";
import { clearStatements, moveCheckpoint, writeFactStatements } from "./audit-writes.ts";

/** A row the live read models and a rebuild from the log disagree on (null: missing on that side). */
export interface AuditDifference {
  table: AuditRowTable;
  key: string;
  live: Record<string, unknown> | null;
  rebuilt: Record<string, unknown> | null;
}

/** What a rebuild found and did. */
export interface RebuildReport {
  /** True when the rebuilt models equal the live ones over every event the live ones had projected. */
  equal: boolean;
  /** How many rows differ, and the first of them (at most 20). */
  differenceCount: number;
  differences: AuditDifference[];
  /** Rows per table after the rebuild. */
  rows: Record<AuditRowTable, number>;
  /** Events the rebuild read from the log. */
  events: number;
  /** False for a check only: the live models were compared, not replaced. */
  replaced: boolean;
  checkpoint: GlobalCheckpoint;
}

/** Differences listed in a report; the count covers all of them. */
const LISTED_DIFFERENCES = 20;

/** Key columns of each table, for matching rows and naming a difference. */
const KEYS: Record<AuditRowTable, readonly string[]> = {
  audit_sessions: ["session_id"],
  audit_compactions: ["session_id", "seq"],
  audit_failures: ["session_id", "seq"],
  audit_supersessions: ["session_id", "message_id"],
  audit_replacements: ["session_id", "message_id"],
};

type Row = Record<string, unknown>;

/**
 * Rebuilds every audit read model from the log and checks the result against the live models: first the
 * live models catch up, then the whole log is projected afresh in memory and compared row by row over
 * the events the live models had seen (later events are not a difference). Unless `checkOnly`, the
 * rebuilt rows then replace the live ones in one transaction (ConcurrencyConflict if another projector
 * moved the live models meanwhile: run it again).
 */
export async function rebuildAudit(
  source: AuditSource,
  options: { checkOnly?: boolean; pageSize?: number; onProgress?: AuditProgress } = {},
): Promise<RebuildReport> {
  await catchUpAudit(source, options.pageSize === undefined ? {} : { pageSize: options.pageSize });
  const { checkpoint: liveCheckpoint, tables: live } = await readLiveRows(source);

  const facts = emptyAuditFacts();
  let checkpoint = "";
  let events = 0;
  for (;;) {
    const page = await source.log.readAll({ after: checkpoint, limit: options.pageSize ?? AUDIT_PAGE_SIZE });
    if (page.events.length === 0) break;
    addAuditFacts(facts, page.events);
    checkpoint = page.checkpoint;
    events += page.events.length;
    options.onProgress?.({ events });
  }
  const rebuilt = auditRows(facts) as Record<AuditRowTable, Row[]>;
  const differences = compare(live, rebuilt);

  if (options.checkOnly !== true) {
    const { db } = source;
    const swapped = await source.writeGuarded(moveCheckpoint(db, liveCheckpoint, checkpoint), [
      ...clearStatements(db),
      ...writeFactStatements(db, facts),
    ]);
    if (!swapped) throw new ProjectionMoved("audit", "the audit read models moved during the rebuild; run it again");
  }
  const rows = Object.fromEntries(AUDIT_ROW_TABLES.map((t) => [t, rebuilt[t].length])) as Record<AuditRowTable, number>;
  return {
    equal: differences.length === 0,
    differenceCount: differences.length,
    differences: differences.slice(0, LISTED_DIFFERENCES),
    rows,
    events,
    replaced: options.checkOnly !== true,
    checkpoint,
  };
}

/**
 * The live rows of every audit table and the checkpoint they stand at: read between two reads of the
 * checkpoint, again until it holds still (only a projector's page moves it, and rows with it).
 */
async function readLiveRows(
  source: AuditSource,
): Promise<{ checkpoint: GlobalCheckpoint; tables: Record<AuditRowTable, Row[]> }> {
  for (;;) {
    const checkpoint = await readAuditCheckpoint(source);
    const tables = {} as Record<AuditRowTable, Row[]>;
    for (const table of AUDIT_ROW_TABLES) {
      const rows = await guardStorage("audit", () => source.db.selectFrom(table).selectAll().execute());
      // The store's tenant, on every row: not part of what a rebuild from the tenant's log yields.
      tables[table] = rows.map((row) => {
        const { tenant_id: _, ...rest } = row as Row;
        return rest;
      });
    }
    if ((await readAuditCheckpoint(source)) === checkpoint) return { checkpoint, tables };
  }
}

/**
 * Row-by-row differences between live and rebuilt tables, over what the live models had seen: a rebuilt
 * row from a later event than a session's live `last_seq` is left out, and so is a later hand-off.
 */
function compare(live: Record<AuditRowTable, Row[]>, rebuilt: Record<AuditRowTable, Row[]>): AuditDifference[] {
  const seen = new Map(live.audit_sessions.map((s) => [s.session_id as string, s.last_seq as number]));
  const known = (row: Row): boolean => (row.seq as number) <= (seen.get(row.session_id as string) ?? 0);
  const differences: AuditDifference[] = [];
  for (const table of AUDIT_ROW_TABLES) {
    const rebuiltRows =
      table === "audit_sessions"
        ? rebuilt[table].filter((s) => seen.has(s.session_id as string)).map((s) => asSeenAt(s, seen))
        : rebuilt[table].filter(known);
    const liveByKey = new Map(live[table].map((r) => [keyOf(table, r), canonical(r)]));
    const rebuiltByKey = new Map(rebuiltRows.map((r) => [keyOf(table, r), canonical(r)]));
    for (const [key, row] of rebuiltByKey) {
      const other = liveByKey.get(key);
      if (other === undefined || JSON.stringify(other) !== JSON.stringify(row)) {
        differences.push({ table, key, live: other ?? null, rebuilt: row });
      }
    }
    for (const [key, row] of liveByKey) {
      if (!rebuiltByKey.has(key)) differences.push({ table, key, live: row, rebuilt: null });
    }
  }
  return differences;
}

/** A rebuilt session row as the live models would hold it at their own last seq of that session. */
function asSeenAt(row: Row, seen: Map<string, number>): Row {
  const lastSeq = seen.get(row.session_id as string) ?? 0;
  const handedOffLater = row.handed_off_seq !== null && (row.handed_off_seq as number) > lastSeq;
  return {
    ...row,
    last_seq: Math.min(row.last_seq as number, lastSeq),
    ...(handedOffLater ? { handed_off_to: null, handed_off_at: null, handed_off_seq: null } : {}),
  };
}

function keyOf(table: AuditRowTable, row: Row): string {
  return KEYS[table].map((k) => String(row[k])).join("/");
}

/** A row with sorted keys and timestamps as ISO strings, so both engines' values compare as text. */
function canonical(row: Row): Row {
  const out: Row = {};
  for (const key of Object.keys(row).sort()) {
    const value = row[key];
    out[key] =
      value instanceof Date || (key.endsWith("_at") && typeof value === "string")
        ? new Date(value as string | Date).toISOString()
        : value;
  }
  return out;
}
