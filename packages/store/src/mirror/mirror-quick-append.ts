import type { MirrorKey } from "@palimpsest/core";
import { type QueryExecutorProvider, sql } from "kysely";
import { type MirrorRowRead, planMirrorAppend, writesEntries } from "./mirror-append-plan.ts";
import type { MirrorAppendResult, MirrorEntryInput, MirrorSummarize } from "./mirror-log.ts";
import type { GenerationSeal } from "./mirror-seal.ts";

/** Where the quick path writes: the database (raw SQL, so it names the tenant itself) and the store's tenant. */
export interface QuickAppendTarget {
  readonly db: QueryExecutorProvider;
  readonly tenant: string;
}

/** What a quick append came to. */
export type QuickAppend =
  /** Stored (or nothing to store); `row` is the key's row as the append left it. */
  | { readonly kind: "appended"; readonly result: MirrorAppendResult; readonly row: MirrorRowRead }
  /** The key's row is no longer as read (another writer appended or dropped it): nothing was written. */
  | { readonly kind: "moved" }
  /** A uuid of the batch is held by the key (a retry, a replay): nothing was written. */
  | { readonly kind: "held" };

/** PostgreSQL's unique violation: a uuid of the batch the key holds (or a seq another writer took). */
const UNIQUE_VIOLATION = "23505";

/**
 * A mirror append on PostgreSQL in one statement, on the key's row as last read or written (`row`): the
 * row is updated only if it is still as read (generation and next_seq: a compare-and-set) and the batch's
 * entries are inserted in the same statement (a data-modifying CTE: atomic on its own, the insert empty
 * when the row moved), on the bet that no uuid of the batch is held. A held uuid fails the insert on the
 * uuid index, which undoes the statement: nothing is written, and the caller's locked path reads what the
 * key holds and dedups (dedupBatch). So the common append costs one round trip and no lookup of held
 * uuids, whatever the planner's statistics (a never-analyzed table turns that lookup into a scan of the
 * key's every entry). `sealing` opens the row's summary and seals what is written.
 */
export async function quickAppend(
  target: QuickAppendTarget,
  key: MirrorKey,
  row: MirrorRowRead,
  entries: readonly MirrorEntryInput[],
  summarize: MirrorSummarize | undefined,
  sealing: GenerationSeal | undefined,
): Promise<QuickAppend> {
  const { db, tenant } = target;
  const subpath = key.subpath ?? "";
  const plan = planMirrorAppend(row, [], entries, summarize, sealing);
  if (!writesEntries(plan)) return { kind: "appended", result: plan, row };
  const summary = plan.summary === undefined ? sql`summary` : sql`${plan.summary}`;
  const written = await sql`
    WITH moved AS (
      UPDATE mirror_keys SET next_seq = ${plan.nextSeq}, mtime_ms = ${plan.mtimeMs}, summary = ${summary}
       WHERE tenant_id = ${tenant} AND project_key = ${key.project} AND session_key = ${key.session}
         AND subpath = ${subpath} AND generation = ${row.generation} AND next_seq = ${row.next_seq}
      RETURNING 1)
    INSERT INTO mirror_entries (tenant_id, project_key, session_key, subpath, generation, seq, uuid, entry)
    SELECT ${tenant}, ${key.project}, ${key.session}, ${subpath}, ${row.generation}, v.seq, v.uuid, v.entry
      FROM unnest(${plan.entries.map((e) => e.seq)}::int[], ${plan.entries.map((e) => e.uuid)}::text[],
                  ${plan.entries.map((e) => e.entry)}::text[]) AS v(seq, uuid, entry)
     WHERE EXISTS (SELECT 1 FROM moved)`
    .execute(db)
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return "held" as const;
      throw error;
    });
  if (written === "held") return { kind: "held" };
  if (Number(written.numAffectedRows ?? 0) !== plan.entries.length) return { kind: "moved" };
  const after = { ...row, next_seq: plan.nextSeq, mtime_ms: plan.mtimeMs, summary: plan.summary ?? row.summary };
  return { kind: "appended", result: plan.result, row: after };
}
