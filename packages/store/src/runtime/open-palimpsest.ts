import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { openEventStore } from "../engine/open-event-store.ts";
import { Palimpsest } from "./palimpsest.ts";

/** Options of openPalimpsest. */
export interface OpenPalimpsestOptions {
  /** `postgres://…`, a SQLite file path, or `:memory:`; default: `./.palimpsest/palimpsest.db`. */
  url?: string;
  /** Take a view snapshot every this many events (default 500). */
  snapshotEvery?: number;
}

/** Opens the store at `url` (migrating it) and returns the session runtime over it. */
export async function openPalimpsest(options: OpenPalimpsestOptions = {}): Promise<Palimpsest> {
  const store = await openEventStore(options.url);
  return new Palimpsest({
    store,
    counterFor: createTokenCounter,
    ...(options.snapshotEvery === undefined ? {} : { snapshotEvery: options.snapshotEvery }),
  });
}
