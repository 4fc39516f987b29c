import type { Kysely } from "kysely";
import type { StoreDatabase } from "./database-schema.ts";

/** One table a conversion went through: how many rows it copied (0 when it was already so) and how long it took. */
export interface PartitionedTable {
  /** The table's name. */
  readonly name: string;
  /** False when the table was already hash-partitioned by session into as many partitions: left as it was. */
  readonly converted: boolean;
  /** The rows copied into the partitions. */
  readonly rows: number;
  /** How long its conversion took, in ms. */
  readonly ms: number;
}

/**
 * An engine's division of `tables` into `partitions` hash partitions by `session_id`, calling `onTable` as
 * each is done (PostgreSQL's: postgres-partition.ts). What it did, table by table.
 */
export type PartitionTables = (
  db: Kysely<StoreDatabase>,
  tables: readonly string[],
  partitions: number,
  onTable: (table: PartitionedTable) => void,
) => Promise<PartitionedTable[]>;
