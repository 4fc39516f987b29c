import { ValidationError } from "@palimpsest/core";
import type { CompactionFact } from "@palimpsest/projections";
import { type Kysely, type Selectable, sql } from "kysely";
import type { Dialect } from "../engine/dialect.ts";
import { toIso } from "../engine/row-mapping.ts";
import {
  COMPACTION_COLUMNS,
  type CompactionFilter,
  compactionWhere,
  type FailureFilter,
  failureWhere,
} from "./audit-filters.ts";
import type { AuditDatabase } from "./audit-source.ts";
import type { AuditCompactionsTable } from "./audit-tables.ts";

/** One compaction, as the audit read model answers it (the fact the projector stored). */
export type AuditedCompaction = CompactionFact;

/** What compactions can be grouped by. */
export const COMPACTION_GROUPS = [
  "session",
  "day",
  "mode",
  "policy",
  "profile",
  "summarizerModel",
  "promptVersion",
  "trigger",
] as const;
/** A grouping of compactions. */
export type CompactionGroup = (typeof COMPACTION_GROUPS)[number];

/** What failures can be grouped by. */
export const FAILURE_GROUPS = ["session", "day", "mode", "reason"] as const;
/** A grouping of failures. */
export type FailureGroup = (typeof FAILURE_GROUPS)[number];

/** Totals of one group of compactions (`group` holds the value of each grouping asked for). */
export interface CompactionTotals {
  group: Record<string, string | null>;
  compactions: number;
  sessions: number;
  targets: number;
  tokensBefore: number;
  tokensAfter: number;
  tokensReclaimed: number;
  auxTokensIn: number;
  auxTokensOut: number;
  /** Of auxTokensIn, read from the provider's prompt cache, over the compactions that recorded it; null when none did. */
  auxTokensCacheRead: number | null;
  /**
   * The auxTokensIn of the compactions that recorded auxTokensCacheRead: the input that count is a share of
   * (a group can mix compactions with and without it, those projected before migration 0020 among them);
   * null when none recorded it.
   */
  auxTokensInWithCacheRead: number | null;
  /** Of auxTokensIn, written to the provider's prompt cache, over the compactions that recorded it; null when none did. */
  auxTokensCacheWrite: number | null;
  /** Mean duration of the compactions that recorded one, in ms; null when none did. */
  meanDurationMs: number | null;
}

/** Totals of one group of failed attempts. */
export interface FailureTotals {
  group: Record<string, string | null>;
  failures: number;
  sessions: number;
}

/** The columns behind each grouping (`day` is computed per engine): the filter's columns. */
const { sessionId: session, ...byField } = COMPACTION_COLUMNS;
const GROUP_COLUMNS: Record<Exclude<CompactionGroup, "day">, keyof AuditCompactionsTable> = { session, ...byField };

/** Compactions matching `filter`, oldest first (at most `limit`). */
export async function listCompactions(
  db: Kysely<AuditDatabase>,
  filter: CompactionFilter,
  limit?: number,
): Promise<AuditedCompaction[]> {
  const rows = await db
    .selectFrom("audit_compactions")
    .selectAll()
    .where((eb) => compactionWhere(eb, filter))
    .orderBy("occurred_at")
    .orderBy("session_id")
    .orderBy("seq")
    .$if(limit !== undefined, (qb) => qb.limit(limit ?? 0))
    .execute();
  return rows.map(toAuditedCompaction);
}

/** Maps a compaction row to its camel-case record. */
export function toAuditedCompaction(row: Selectable<AuditCompactionsTable>): AuditedCompaction {
  return {
    sessionId: row.session_id,
    seq: row.seq,
    compactionId: row.compaction_id,
    occurredAt: toIso(row.occurred_at),
    mode: row.mode,
    trigger: row.trigger,
    policy: row.policy,
    profile: row.profile,
    summarizerModel: row.summarizer_model,
    promptVersion: row.prompt_version,
    targets: row.targets,
    replacements: row.replacements,
    tokensBefore: row.tokens_before,
    tokensAfter: row.tokens_after,
    tokensReclaimed: row.tokens_reclaimed,
    auxTokensIn: row.aux_tokens_in,
    auxTokensOut: row.aux_tokens_out,
    auxTokensCacheRead: row.aux_tokens_cache_read,
    auxTokensCacheWrite: row.aux_tokens_cache_write,
    durationMs: row.duration_ms,
  };
}

/** Compaction totals per group (all matching compactions in one group when `groupBy` is empty). */
export async function compactionTotals(
  db: Kysely<AuditDatabase>,
  dialect: Dialect,
  filter: CompactionFilter,
  groupBy: readonly CompactionGroup[],
): Promise<CompactionTotals[]> {
  checkGroups(groupBy, COMPACTION_GROUPS);
  const keys = groupBy.map((g) => (g === "day" ? dialect.utcDay("occurred_at") : sql.ref(GROUP_COLUMNS[g])));
  const rows = await db
    .selectFrom("audit_compactions")
    .select((eb) => [
      ...keys.map((k, i) => k.as(`g${i}`)),
      eb.fn.countAll<number>().as("compactions"),
      sql<number>`count(distinct session_id)`.as("sessions"),
      sql<number>`coalesce(sum(targets), 0)`.as("targets"),
      sql<number>`coalesce(sum(tokens_before), 0)`.as("tokens_before"),
      sql<number>`coalesce(sum(tokens_after), 0)`.as("tokens_after"),
      sql<number>`coalesce(sum(tokens_reclaimed), 0)`.as("tokens_reclaimed"),
      sql<number>`coalesce(sum(aux_tokens_in), 0)`.as("aux_tokens_in"),
      sql<number>`coalesce(sum(aux_tokens_out), 0)`.as("aux_tokens_out"),
      sql<number | null>`sum(aux_tokens_cache_read)`.as("aux_tokens_cache_read"),
      sql<number | null>`sum(case when aux_tokens_cache_read is not null then aux_tokens_in end)`.as(
        "aux_tokens_in_with_cache_read",
      ),
      sql<number | null>`sum(aux_tokens_cache_write)`.as("aux_tokens_cache_write"),
      sql<number | null>`avg(duration_ms)`.as("mean_duration_ms"),
    ])
    .where((eb) => compactionWhere(eb, filter))
    .$if(keys.length > 0, (qb) => qb.groupBy(keys))
    .execute();
  return rows
    .map((row) => {
      const r = row as Record<string, unknown>;
      return {
        group: groupOf(groupBy, r),
        compactions: Number(r.compactions),
        sessions: Number(r.sessions),
        targets: Number(r.targets),
        tokensBefore: Number(r.tokens_before),
        tokensAfter: Number(r.tokens_after),
        tokensReclaimed: Number(r.tokens_reclaimed),
        auxTokensIn: Number(r.aux_tokens_in),
        auxTokensOut: Number(r.aux_tokens_out),
        auxTokensCacheRead: r.aux_tokens_cache_read === null ? null : Number(r.aux_tokens_cache_read),
        auxTokensInWithCacheRead:
          r.aux_tokens_in_with_cache_read === null ? null : Number(r.aux_tokens_in_with_cache_read),
        auxTokensCacheWrite: r.aux_tokens_cache_write === null ? null : Number(r.aux_tokens_cache_write),
        meanDurationMs: r.mean_duration_ms === null ? null : Math.round(Number(r.mean_duration_ms) * 10) / 10,
      };
    })
    .filter((t) => t.compactions > 0)
    .sort(byGroup);
}

/** Failed attempts per group (by reason class, mode, session or day). */
export async function failureTotals(
  db: Kysely<AuditDatabase>,
  dialect: Dialect,
  filter: FailureFilter,
  groupBy: readonly FailureGroup[],
): Promise<FailureTotals[]> {
  checkGroups(groupBy, FAILURE_GROUPS);
  const keys = groupBy.map((g) =>
    g === "day" ? dialect.utcDay("occurred_at") : sql.ref(g === "session" ? "session_id" : g),
  );
  const rows = await db
    .selectFrom("audit_failures")
    .select((eb) => [
      ...keys.map((k, i) => k.as(`g${i}`)),
      eb.fn.countAll<number>().as("failures"),
      sql<number>`count(distinct session_id)`.as("sessions"),
    ])
    .where((eb) => failureWhere(eb, filter))
    .$if(keys.length > 0, (qb) => qb.groupBy(keys))
    .execute();
  return rows
    .map((row) => {
      const r = row as Record<string, unknown>;
      return { group: groupOf(groupBy, r), failures: Number(r.failures), sessions: Number(r.sessions) };
    })
    .filter((t) => t.failures > 0)
    .sort(byGroup);
}

function groupOf(groupBy: readonly string[], row: Record<string, unknown>): Record<string, string | null> {
  return Object.fromEntries(groupBy.map((g, i) => [g, (row[`g${i}`] as string | null) ?? null]));
}

/** Orders totals by their group values, in grouping order (nulls first), the same on both engines. */
function byGroup(a: { group: Record<string, string | null> }, b: { group: Record<string, string | null> }): number {
  for (const key of Object.keys(a.group)) {
    const x = a.group[key] ?? "";
    const y = b.group[key] ?? "";
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function checkGroups(groupBy: readonly string[], allowed: readonly string[]): void {
  const unknown = groupBy.filter((g) => !allowed.includes(g));
  if (unknown.length > 0) {
    throw new ValidationError(`cannot group by ${unknown.join(", ")}`, [`group by: one of ${allowed.join(", ")}`]);
  }
}
