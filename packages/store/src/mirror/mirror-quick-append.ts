import type { MirrorKey } from "@palimpsest/core";
import { type CompiledQuery, type QueryExecutorProvider, sql } from "kysely";
import type { Dialect, GuardedInsert } from "../engine/dialect.ts";
import type { GuardedWrite } from "../engine/guarded-write.ts";
import {
  type MirrorAppendWrite,
  type MirrorEntryWrite,
  type MirrorRowRead,
  planMirrorAppend,
  writesEntries,
} from "./mirror-append-plan.ts";
import type { MirrorAppendResult, MirrorEntryInput, MirrorSummarize } from "./mirror-log.ts";
import type { GenerationSeal } from "./mirror-seal.ts";

/**
 * Where the quick path writes: the database (raw SQL, so it names the tenant itself), its dialect, the
 * store's tenant and its guarded write.
 */
export interface QuickAppendTarget {
  readonly db: QueryExecutorProvider;
  readonly dialect: Dialect;
  readonly tenant: string;
  readonly writeGuarded: GuardedWrite;
}

/** What a quick append came to. */
export type QuickAppend =
  /** Stored (or nothing to store); `row` is the key's row as the append left it. */
  | { readonly kind: "appended"; readonly result: MirrorAppendResult; readonly row: MirrorRowRead }
  /** The key's row is no longer as read (another writer appended or dropped it): nothing was written. */
  | { readonly kind: "moved" }
  /** A uuid of the batch is held by the key (a retry, a replay): nothing was written. */
  | { readonly kind: "held" };

/** A unique violation (PostgreSQL's code, SQLite's): a uuid of the batch the key holds (or a seq another writer took). */
const UNIQUE_VIOLATIONS = new Set(["23505", "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"]);

/** The columns of an entry as the quick path inserts them, with their PostgreSQL types. */
const ENTRY_COLUMNS = [
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

/**
 * A mirror append without reads, on the key's row as last read or written (`row`): the row is updated
 * only if it is still as read (generation and next_seq: a compare-and-set) and the batch's entries are
 * inserted with it, atomically (the dialect's insertUnderGuard: one statement on PostgreSQL, one round
 * trip), on the bet that no uuid of the batch is held. A held uuid fails the insert on the uuid index,
 * which undoes it: nothing is written, and the caller's locked path reads what the key holds and dedups
 * (dedupBatch). So the common append looks up no held uuid, whatever the planner's statistics (on a
 * never-analyzed PostgreSQL table that lookup scans the key's every entry). `sealing` opens the row's
 * summary and seals what is written.
 */
export async function quickAppend(
  target: QuickAppendTarget,
  key: MirrorKey,
  row: MirrorRowRead,
  entries: readonly MirrorEntryInput[],
  summarize: MirrorSummarize | undefined,
  sealing: GenerationSeal | undefined,
): Promise<QuickAppend> {
  const plan = planMirrorAppend(row, [], entries, summarize, sealing);
  if (!writesEntries(plan)) return { kind: "appended", result: plan, row };
  const insert: GuardedInsert = {
    table: "mirror_entries",
    columns: ENTRY_COLUMNS,
    rows: plan.entries.map((e) => entryValues(target.tenant, key, row.generation, e)),
  };
  const written = await target.dialect
    .insertUnderGuard(target.db, target.writeGuarded, movedRow(target.tenant, key, row, plan), insert)
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) return "held" as const;
      throw error;
    });
  if (written === "held") return { kind: "held" };
  if (!written) return { kind: "moved" };
  const after = { ...row, next_seq: plan.nextSeq, mtime_ms: plan.mtimeMs, summary: plan.summary ?? row.summary };
  return { kind: "appended", result: plan.result, row: after };
}

/** The INSERTs of `entries` into the key's `generation`, as SQL naming the tenant (the locked path's, either engine). */
export function insertEntries(
  target: Pick<QuickAppendTarget, "db" | "tenant">,
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
function entryValues(tenant: string, key: MirrorKey, generation: number, entry: MirrorEntryWrite): unknown[] {
  return [tenant, key.project, key.session, key.subpath ?? "", generation, entry.seq, entry.uuid, entry.entry];
}

/** Whether the driver's error (or the StorageError wrapping it) is a unique violation. */
function isUniqueViolation(error: unknown): boolean {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  return UNIQUE_VIOLATIONS.has(String(code)) || UNIQUE_VIOLATIONS.has(String(cause?.code));
}

/** The compare-and-set of the key's row, as SQL naming the tenant. */
function movedRow(tenant: string, key: MirrorKey, row: MirrorRowRead, plan: MirrorAppendWrite) {
  const summary = plan.summary === undefined ? sql`summary` : sql`${plan.summary}`;
  return sql`UPDATE mirror_keys SET next_seq = ${plan.nextSeq}, mtime_ms = ${plan.mtimeMs}, summary = ${summary}
     WHERE tenant_id = ${tenant} AND project_key = ${key.project} AND session_key = ${key.session}
       AND subpath = ${key.subpath ?? ""} AND generation = ${row.generation} AND next_seq = ${row.next_seq}`;
}
