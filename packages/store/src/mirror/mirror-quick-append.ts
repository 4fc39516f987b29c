import type { MirrorKey } from "@palimpsest/core";
import type { QueryExecutorProvider } from "kysely";
import type { Dialect, GuardedInsert } from "../engine/dialect.ts";
import type { GuardedWrite } from "../engine/guarded-write.ts";
import {
  ENTRY_COLUMNS,
  entryValues,
  guardKeyRow,
  type MirrorRowRead,
  planMirrorAppend,
  rowAfter,
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

/** A unique violation (PostgreSQL's code, SQLite's): a uuid of the batch the key holds. */
const UNIQUE_VIOLATIONS = new Set(["23505", "SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"]);

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
    .insertUnderGuard(target.db, target.writeGuarded, guardKeyRow(target.tenant, key, row, plan), insert)
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) return "held" as const;
      throw error;
    });
  if (written === "held") return { kind: "held" };
  if (!written) return { kind: "moved" };
  return { kind: "appended", result: plan.result, row: rowAfter(row, plan) };
}

/** Whether the driver's error (or the StorageError wrapping it) is a unique violation. */
function isUniqueViolation(error: unknown): boolean {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
  return UNIQUE_VIOLATIONS.has(String(code)) || UNIQUE_VIOLATIONS.has(String(cause?.code));
}
