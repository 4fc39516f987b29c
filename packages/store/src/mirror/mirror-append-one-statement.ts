import type { MirrorKey } from "@palimpsest/core";
import { type Kysely, sql } from "kysely";
import { dedupBatch } from "./mirror-dedup.ts";
import type { MirrorAppendResult, MirrorEntryInput, MirrorSummarize } from "./mirror-log.ts";
import type { MirrorTables } from "./mirror-tables.ts";

/** The key's row and the held entries of the batch's uuids, read in one statement (one snapshot). */
interface KeyRead {
  generation: number;
  next_seq: number;
  mtime_ms: number | string;
  summary: string | null;
  /** [uuid, entry] pairs of the key's current generation, for the batch's uuids. */
  held: [string, string][];
}

/**
 * A mirror append on PostgreSQL in two round trips instead of a locked transaction's six: one statement
 * reads the key's row and the entries it holds under the batch's uuids (one snapshot; each uuid looked up
 * on its own, so the uuid index is searched on all its columns whatever the table's statistics say: an
 * `= ANY` over a key the planner believes small is applied as a filter over the key's every entry), then one statement
 * updates the row only if it is still as read (generation and next_seq: a compare-and-set) and inserts the
 * fresh entries in the same statement (a data-modifying CTE, atomic on its own). Undefined, having written
 * nothing, when the key has no row yet or another writer moved it in between: the caller then takes the
 * locked path, which always lands (an optimistic loop alone could lose every race to a steady writer).
 */
export async function appendInOneStatement<DB extends MirrorTables>(
  db: Kysely<DB>,
  key: MirrorKey,
  entries: readonly MirrorEntryInput[],
  summarize: MirrorSummarize | undefined,
): Promise<MirrorAppendResult | undefined> {
  const subpath = key.subpath ?? "";
  const uuids = [...new Set(entries.flatMap((e) => (e.uuid === undefined ? [] : [e.uuid])))];
  const read = await sql<KeyRead>`
    SELECT k.generation, k.next_seq, k.mtime_ms, k.summary,
      (SELECT coalesce(json_agg(json_build_array(e.uuid, e.entry)), '[]'::json)
         FROM unnest(${uuids}::text[]) AS u(uuid),
              LATERAL (SELECT m.uuid, m.entry FROM mirror_entries m
                        WHERE m.project_key = k.project_key AND m.session_key = k.session_key AND m.subpath = k.subpath
                          AND m.generation = k.generation AND m.uuid = u.uuid OFFSET 0) AS e) AS held
      FROM mirror_keys k
     WHERE k.project_key = ${key.project} AND k.session_key = ${key.session} AND k.subpath = ${subpath}`.execute(db);
  const row = read.rows[0];
  if (row === undefined) return undefined;
  const held = typeof row.held === "string" ? (JSON.parse(row.held) as [string, string][]) : row.held;
  const { fresh, mismatched } = dedupBatch(entries, new Map(held));
  const unchanged = { stored: 0, generation: row.generation, nextSeq: row.next_seq, mismatched };
  if (fresh.length === 0) return unchanged;
  const mtime = Math.max(Date.now(), Number(row.mtime_ms) + 1);
  const summary = summarize === undefined ? sql`summary` : sql`${summarize(row.summary, fresh, mtime)}`;
  const seqs = fresh.map((_, i) => row.next_seq + i + 1);
  const written = await sql`
    WITH moved AS (
      UPDATE mirror_keys SET next_seq = ${row.next_seq + fresh.length}, mtime_ms = ${mtime}, summary = ${summary}
       WHERE project_key = ${key.project} AND session_key = ${key.session} AND subpath = ${subpath}
         AND generation = ${row.generation} AND next_seq = ${row.next_seq}
      RETURNING 1)
    INSERT INTO mirror_entries (project_key, session_key, subpath, generation, seq, uuid, entry)
    SELECT ${key.project}, ${key.session}, ${subpath}, ${row.generation}, v.seq, v.uuid, v.entry
      FROM unnest(${seqs}::int[], ${fresh.map((e) => e.uuid ?? null)}::text[], ${fresh.map((e) => e.text)}::text[])
        AS v(seq, uuid, entry)
     WHERE EXISTS (SELECT 1 FROM moved)`
    .execute(db)
    .catch((error: unknown) => {
      // A uuid stored in between by a writer this one's guard did not see (it cannot, the row moved): locked path.
      if ((error as { code?: unknown }).code === "23505") return undefined;
      throw error;
    });
  if (Number(written?.numAffectedRows ?? 0) !== fresh.length) return undefined;
  return { stored: fresh.length, generation: row.generation, nextSeq: row.next_seq + fresh.length, mismatched };
}
