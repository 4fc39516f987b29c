import type { MirrorKey } from "@palimpsest/core";
import type { QueryExecutorProvider, RawBuilder } from "kysely";
import type { Dialect, GuardedInsert } from "../engine/dialect.ts";
import type { GuardedWrite } from "../engine/guarded-write.ts";
import {
  ENTRY_COLUMNS,
  entryValues,
  guardKeyRow,
  type MirrorAppendWrite,
  type MirrorRowRead,
  makeKeyRow,
  NEW_ROW,
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
export function quickAppend(
  target: QuickAppendTarget,
  key: MirrorKey,
  row: MirrorRowRead,
  entries: readonly MirrorEntryInput[],
  summarize: MirrorSummarize | undefined,
  sealing: GenerationSeal | undefined,
): Promise<QuickAppend> {
  return appendUnderGuard(target, key, row, entries, summarize, sealing, (plan) =>
    guardKeyRow(target.tenant, key, row, plan),
  );
}

/**
 * quickAppend on the bet that the key is new (its first append in this process, on a store that does not
 * encrypt): the key's row made as the append leaves it and the entries inserted with it, atomically
 * (makeKeyRow under insertUnderGuard: one statement on PostgreSQL, one transaction on SQLite), where
 * reading the row, making it and writing on it took three. "moved", nothing written, when the key has a
 * row: the caller reads it and appends on it.
 */
export function newKeyAppend(
  target: QuickAppendTarget,
  key: MirrorKey,
  entries: readonly MirrorEntryInput[],
  summarize: MirrorSummarize | undefined,
): Promise<QuickAppend> {
  return appendUnderGuard(target, key, NEW_ROW, entries, summarize, undefined, (plan) =>
    makeKeyRow(target.tenant, key, plan),
  );
}

/** The batch planned on `row`, written under the guard `guardFor` makes of the plan (see quickAppend). */
async function appendUnderGuard(
  target: QuickAppendTarget,
  key: MirrorKey,
  row: MirrorRowRead,
  entries: readonly MirrorEntryInput[],
  summarize: MirrorSummarize | undefined,
  sealing: GenerationSeal | undefined,
  guardFor: (plan: MirrorAppendWrite) => RawBuilder<unknown>,
): Promise<QuickAppend> {
  const plan = planMirrorAppend(row, [], entries, summarize, sealing);
  if (!writesEntries(plan)) return { kind: "appended", result: plan, row };
  const insert: GuardedInsert = {
    table: "mirror_entries",
    columns: ENTRY_COLUMNS,
    rows: plan.entries.map((e) => entryValues(target.tenant, key, row.generation, e)),
  };
  const written = await target.dialect
    .insertUnderGuard(target.db, target.writeGuarded, guardFor(plan), insert)
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
