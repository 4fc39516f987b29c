import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { openEventStore } from "../engine/open-event-store.ts";
import type { CompactionSettings } from "./compaction-settings.ts";
import { Palimpsest, type RuntimeDeps } from "./palimpsest.ts";

/** Options of openPalimpsest. */
export interface OpenPalimpsestOptions {
  /** `postgres://…`, a SQLite file path, or `:memory:`; default: `./.palimpsest/palimpsest.db`. */
  url?: string;
  /** SQLite: how often watchers poll for other processes' commits, in ms (see openEventStore; default 100). */
  sqlitePollMs?: number;
  /** SQLite: how long (ms) to wait for another process's lock before failing (see openEventStore; default 5000). */
  sqliteBusyTimeoutMs?: number;
  /** Take a view snapshot every this many events (default 500). */
  snapshotEvery?: number;
  /** How sessions compact (policy, profile, summarizer, automatic checks, trimming on append). */
  compaction?: CompactionSettings;
  /** Told the outcome of every automatic compaction that did something. */
  onAutoCompaction?: RuntimeDeps["onAutoCompaction"];
}

/** Opens the store at `url` (migrating it) and returns the session runtime over it. */
export async function openPalimpsest(options: OpenPalimpsestOptions = {}): Promise<Palimpsest> {
  const store = await openEventStore(options.url, {
    ...(options.sqlitePollMs === undefined ? {} : { sqlitePollMs: options.sqlitePollMs }),
    ...(options.sqliteBusyTimeoutMs === undefined ? {} : { sqliteBusyTimeoutMs: options.sqliteBusyTimeoutMs }),
  });
  return new Palimpsest({
    store,
    counterFor: createTokenCounter,
    ...(options.snapshotEvery === undefined ? {} : { snapshotEvery: options.snapshotEvery }),
    ...(options.compaction === undefined ? {} : { compaction: options.compaction }),
    ...(options.onAutoCompaction === undefined ? {} : { onAutoCompaction: options.onAutoCompaction }),
  });
}
