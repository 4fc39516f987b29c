import type { MirrorKey } from "@palimpsest/core";
import { type CompiledQuery, type QueryExecutorProvider, sql } from "kysely";
import { dedupBatch } from "./mirror-dedup.ts";
import type { MirrorAppendResult, MirrorEntryInput, MirrorSummarize } from "./mirror-log.ts";
import type { GenerationSeal } from "./mirror-seal.ts";

/** The columns naming `key` in every mirror table, as an equality filter. */
export function keyColumns(key: MirrorKey): { project_key: string; session_key: string; subpath: string } {
  return { project_key: key.project, session_key: key.session, subpath: key.subpath ?? "" };
}

/** The key's row as an append reads it. */
export interface MirrorRowRead {
  generation: number;
  next_seq: number;
  mtime_ms: number | string;
  summary: string | null;
}

/** A key's row before its first append: generation 0, nothing stored (insertKeyRow makes it so). */
export const NEW_ROW = { generation: 0, next_seq: 0, mtime_ms: 0, summary: null } as const satisfies MirrorRowRead;

/** One entry to insert: its seq in the generation, its uuid, its text as stored (sealed when encrypted). */
export interface MirrorEntryWrite {
  seq: number;
  uuid: string | null;
  entry: string;
}

/** What an append writes on the key's row as read: the row's new values and the entries to insert. */
export interface MirrorAppendWrite {
  nextSeq: number;
  mtimeMs: number;
  /** The folded summary as stored; undefined when the append folds none (subpaths): the row keeps its own. */
  summary: string | undefined;
  entries: MirrorEntryWrite[];
  result: MirrorAppendResult;
}

/**
 * What an append of `entries` comes to on the key's row as read and the entries the key holds under the
 * batch's uuids (`held`, uuid → stored text): nothing to write (a retry, a replay, an empty batch; the
 * result says so), or the write (dedupBatch's fresh entries after the row's last seq, the summary folded
 * from the row's). `sealing` opens what was read and seals what is written, when the store encrypts.
 */
export function planMirrorAppend(
  row: MirrorRowRead,
  held: Iterable<readonly [string, string]>,
  entries: readonly MirrorEntryInput[],
  summarize: MirrorSummarize | undefined,
  sealing: GenerationSeal | undefined,
): MirrorAppendResult | MirrorAppendWrite {
  const opened = new Map([...held].map(([uuid, text]) => [uuid, sealing?.openEntry(text) ?? text]));
  const { fresh, mismatched } = dedupBatch(entries, opened);
  if (fresh.length === 0) return { stored: 0, generation: row.generation, nextSeq: row.next_seq, mismatched };
  const mtimeMs = Math.max(Date.now(), Number(row.mtime_ms) + 1);
  const folded = (previous: string | null): string | undefined => {
    if (summarize === undefined) return undefined;
    if (sealing === undefined) return summarize(previous, fresh, mtimeMs);
    return sealing.sealSummary(summarize(sealing.openSummary(previous), fresh, mtimeMs));
  };
  const nextSeq = row.next_seq + fresh.length;
  return {
    nextSeq,
    mtimeMs,
    summary: folded(row.summary),
    entries: fresh.map((e, i) => ({
      seq: row.next_seq + i + 1,
      uuid: e.uuid ?? null,
      entry: sealing?.sealEntry(e.text) ?? e.text,
    })),
    result: { stored: fresh.length, generation: row.generation, nextSeq, mismatched },
  };
}

/** The key's row as a written plan leaves it. */
export function rowAfter(row: MirrorRowRead, plan: MirrorAppendWrite): MirrorRowRead {
  return { ...row, next_seq: plan.nextSeq, mtime_ms: plan.mtimeMs, summary: plan.summary ?? row.summary };
}

/** Whether a plan writes (else it is the result of an append that stores nothing). */
export function writesEntries(plan: MirrorAppendResult | MirrorAppendWrite): plan is MirrorAppendWrite {
  return "entries" in plan;
}

/** The columns of an entry as both paths insert them, with their PostgreSQL types. */
export const ENTRY_COLUMNS = [
  { name: "tenant_id", pgType: "text" },
  { name: "project_key", pgType: "text" },
  { name: "session_key", pgType: "text" },
  { name: "subpath", pgType: "text" },
  { name: "generation", pgType: "int" },
  { name: "seq", pgType: "int" },
  { name: "uuid", pgType: "text" },
  { name: "entry", pgType: "text" },
] as const;

/** Rows per INSERT of entries in the locked path: 8 parameters each, far below either engine's limit. */
const ENTRIES_PER_INSERT = 500;

/** The INSERTs of `entries` into the key's `generation`, as SQL naming the tenant (the locked path's, either engine). */
export function insertEntries(
  target: { readonly db: QueryExecutorProvider; readonly tenant: string },
  key: MirrorKey,
  generation: number,
  entries: readonly MirrorEntryWrite[],
): CompiledQuery[] {
  const names = sql.join(ENTRY_COLUMNS.map((c) => sql.ref(c.name)));
  const inserts: CompiledQuery[] = [];
  for (let start = 0; start < entries.length; start += ENTRIES_PER_INSERT) {
    const rows = entries
      .slice(start, start + ENTRIES_PER_INSERT)
      .map((e) => sql`(${sql.join(entryValues(target.tenant, key, generation, e))})`);
    inserts.push(sql`INSERT INTO mirror_entries (${names}) VALUES ${sql.join(rows)}`.compile(target.db));
  }
  return inserts;
}

/** An entry's values in ENTRY_COLUMNS' order. */
export function entryValues(tenant: string, key: MirrorKey, generation: number, entry: MirrorEntryWrite): unknown[] {
  return [tenant, key.project, key.session, key.subpath ?? "", generation, entry.seq, entry.uuid, entry.entry];
}

/**
 * The guard of a key's first append in this process, when the key may be new: its row made as the append
 * leaves it (generation 0, `plan`'s next seq, time and summary), unless the key has a row already (`ON
 * CONFLICT DO NOTHING`: then nothing is written, and the append reads the row). Raw SQL, naming the
 * tenant, as guardKeyRow.
 */
export function makeKeyRow(tenant: string, key: MirrorKey, plan: MirrorAppendWrite) {
  return sql`INSERT INTO mirror_keys (tenant_id, project_key, session_key, subpath, generation, next_seq,
      folded_seq, mtime_ms, summary, last_batch)
    VALUES (${tenant}, ${key.project}, ${key.session}, ${key.subpath ?? ""}, 0, ${plan.nextSeq}, 0, ${plan.mtimeMs},
      ${plan.summary ?? null}, NULL)
    ON CONFLICT DO NOTHING`;
}

/**
 * The compare-and-set of the key's row, as SQL naming the tenant: generation, next_seq and mtime_ms as
 * read (mtime_ms too, so a row rebuilt to the same counts, after a restore from a backup, is not taken
 * for the one remembered).
 */
export function guardKeyRow(tenant: string, key: MirrorKey, row: MirrorRowRead, plan: MirrorAppendWrite) {
  const summary = plan.summary === undefined ? sql`summary` : sql`${plan.summary}`;
  return sql`UPDATE mirror_keys SET next_seq = ${plan.nextSeq}, mtime_ms = ${plan.mtimeMs}, summary = ${summary}
     WHERE tenant_id = ${tenant} AND project_key = ${key.project} AND session_key = ${key.session}
       AND subpath = ${key.subpath ?? ""} AND generation = ${row.generation} AND next_seq = ${row.next_seq}
       AND mtime_ms = ${row.mtime_ms}`;
}
