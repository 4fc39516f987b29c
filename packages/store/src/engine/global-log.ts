import { type GlobalCheckpoint, ValidationError } from "@palimpsest/core";
import type { Kysely, Selectable } from "kysely";
import type { EventsTable, StoreDatabase } from "./database-schema.ts";
import type { EVENT_COLUMNS } from "./row-mapping.ts";

/** One row of the global log as readers select it. */
export type GlobalRow = Pick<Selectable<EventsTable>, (typeof EVENT_COLUMNS)[number]>;

/** Rows of the global log after a checkpoint, in the engine's global order, and the checkpoint after them. */
export interface GlobalRows {
  rows: GlobalRow[];
  checkpoint: GlobalCheckpoint;
}

/** How an engine pages its global log: the order, the visibility rule and the checkpoint's text. */
export type GlobalLogReader = (
  db: Kysely<StoreDatabase>,
  after: GlobalCheckpoint,
  limit: number | undefined,
) => Promise<GlobalRows>;

/** A checkpoint this engine cannot have written. */
export function foreignCheckpoint(checkpoint: string, expected: string): ValidationError {
  return new ValidationError(`not a global checkpoint of this store: ${JSON.stringify(checkpoint)}`, [
    `expected "" or ${expected}`,
  ]);
}

/**
 * The position a checkpoint stands after, where the global order is position order (one writer at a time:
 * SQLite, the memory store) and a checkpoint is the last position read, in decimal: 0 for "" (the start),
 * ValidationError for any other text.
 */
export function positionOfCheckpoint(checkpoint: GlobalCheckpoint): number {
  if (checkpoint !== "" && !/^\d+$/.test(checkpoint)) throw foreignCheckpoint(checkpoint, "a position");
  return checkpoint === "" ? 0 : Number(checkpoint);
}

/**
 * Waits until every commit made so far is visible to global readers, or `timeoutMs` passed; true when
 * it is. Read-your-writes for global readers: a commit stays below the visibility barrier while an older
 * transaction is open.
 */
export type VisibilityWait = (db: Kysely<StoreDatabase>, timeoutMs: number) => Promise<boolean>;

/** The checkpoint just after the last event global readers can see now ("" for an empty log). */
export type GlobalHead = (db: Kysely<StoreDatabase>) => Promise<GlobalCheckpoint>;
