/**
 * Partitioning an existing log (partitionLog, what `palimpsest maintain --partition` runs): a PostgreSQL log
 * of the scale bench's sessions (100 small events each, with their snapshots and audit read models) divided
 * into 16 partitions. Reported: the conversion's time, its longest table, and its rate against loading the
 * same log through the store. Every reader and writer of the log waits for the whole conversion.
 */
import { AuditReadModels, openEventStore, type PartitionedTable, partitionLog } from "@palimpsest/store";
import { EVENTS_PER_SESSION, loadSessions } from "./scale-load.ts";
import { progress, timed } from "./stats.ts";

/** The partitions the bench divides each table into. */
export const BENCH_PARTITIONS = 16;

/** One log converted. */
export interface PartitionResult {
  events: number;
  /** Loading the log through the store (appends and snapshots), then the audit catch-up, ms. */
  loadMs: number;
  /** The conversion, ms: how long the log's readers and writers wait. */
  convertMs: number;
  tables: PartitionedTable[];
}

/** Converts a log of each size, loaded into a fresh database from `databaseFor`. */
export async function runPartitionBench(
  databaseFor: (label: string) => Promise<string>,
  quick: boolean,
): Promise<PartitionResult[]> {
  const results: PartitionResult[] = [];
  for (const events of quick ? [20_000] : [100_000, 1_000_000]) {
    const url = await databaseFor(`partition_${events}`);
    const store = await openEventStore(url);
    const sessions = events / EVENTS_PER_SESSION;
    const loaded = await timed(async () => {
      await loadSessions(store, "bulk", 0, sessions, 4);
      await new AuditReadModels(store).catchUp();
    });
    await store.close();
    const converted = await timed(() => partitionLog(url, { partitions: BENCH_PARTITIONS }));
    const result = {
      events: sessions * EVENTS_PER_SESSION,
      loadMs: loaded.ms,
      convertMs: converted.ms,
      tables: converted.value.tables,
    };
    progress(
      `partition ${result.events} events: loaded in ${loaded.ms.toFixed(0)} ms, divided in ${converted.ms.toFixed(0)} ms`,
    );
    results.push(result);
  }
  return results;
}
