import { checkOptions, definedFields, type Keyring, type OptionShape, OptionValues } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import {
  EVENT_STORE_OPTION_SHAPE,
  type OpenEventStoreOptions,
  type OpenedEventStore,
  openEventStore,
} from "@palimpsest/store";
import { checkPrecompactNeedsAuto, Palimpsest, RUNTIME_OPTION_SHAPE, type RuntimeOptions } from "./palimpsest.ts";
import { warmUpAppendPath, warmUpStore } from "./warm-up.ts";

/**
 * Options of openPalimpsest: where the store is, and the runtime's own options (compaction, telemetry,
 * pre-compaction, snapshots, error callbacks; see RuntimeDeps). Exact: an unknown key is a type error,
 * and VALIDATION at run time.
 */
export interface OpenPalimpsestOptions extends RuntimeOptions {
  /** `postgres://…`, a SQLite file path, or `:memory:`; default: `./.palimpsest/palimpsest.db`. */
  url?: string;
  /** SQLite: how often watchers poll for other processes' commits, in ms (see openEventStore; default 100). */
  sqlitePollMs?: number;
  /** SQLite: how long (ms) to wait for another process's lock before failing (see openEventStore; default 5000). */
  sqliteBusyTimeoutMs?: number;
  /**
   * The tenant whose sessions this runtime reads and writes (see openEventStore; default `default`): every
   * session, view, audit query, feed, hand-off and erasure is confined to it. Open one runtime per tenant.
   */
  tenant?: string;
  /**
   * Encrypts every session's content under a data key of its own that the keyring keeps, destroyed by an
   * erasure (see openEventStore and docs/encryption.md; `openLocalKeyring` for one machine).
   */
  keyring?: Keyring;
  /** Index each message's words for `session.recall` (default true; see openEventStore and docs/recall.md). */
  search?: boolean;
}

/** Every key of OpenPalimpsestOptions with its value's schema (the compiler keeps it complete and exact). */
const OPTION_SHAPE: OptionShape<OpenPalimpsestOptions> = {
  url: OptionValues.any, // openerFor checks it, naming the forms a URL takes
  sqlitePollMs: EVENT_STORE_OPTION_SHAPE.sqlitePollMs,
  sqliteBusyTimeoutMs: EVENT_STORE_OPTION_SHAPE.sqliteBusyTimeoutMs,
  tenant: EVENT_STORE_OPTION_SHAPE.tenant,
  keyring: EVENT_STORE_OPTION_SHAPE.keyring,
  search: EVENT_STORE_OPTION_SHAPE.search,
  ...RUNTIME_OPTION_SHAPE,
};

/**
 * The encoding sessions of current models count in: openPalimpsest loads it (and warms the append path
 * with it: warmUpAppendPath) while the store connects, migrates and warms its statements (warmUpStore),
 * and returns once all are done, so a session's first append does not wait for it (a few hundred ms of
 * CPU, once per process).
 */
const PRELOADED_ENCODING = "o200k_base";

/**
 * Opens the store at `url` (migrating it) and returns the session runtime over it, with every other option.
 * The tokenizer of current models (o200k_base) is loaded beside the store's opening; the append path is
 * warmed, writing nothing (openWarmedStore).
 */
export async function openPalimpsest(options: OpenPalimpsestOptions = {}): Promise<Palimpsest> {
  checkOptions("openPalimpsest", options, OPTION_SHAPE);
  checkPrecompactNeedsAuto("openPalimpsest", options);
  const { url, sqlitePollMs, sqliteBusyTimeoutMs, tenant, keyring, search, ...runtime } = options;
  const store = await openWarmedStore(
    url,
    definedFields({ sqlitePollMs, sqliteBusyTimeoutMs, tenant, keyring, search }),
  );
  try {
    return new Palimpsest({ store, counterFor: createTokenCounter, ...runtime });
  } catch (error) {
    await store.close(); // a runtime refused is no reason to keep its connections or the file open
    throw error;
  }
}

/**
 * openEventStore with openPalimpsest's warm-ups: the tokenizer of current models loaded, and a step run through
 * the append path's CPU work with it (warmUpAppendPath), while the store connects and migrates; then the
 * store's appends rehearsed in a transaction rolled back (warmUpStore). Resolves once all are done, so the
 * first appends of a runtime built over the store wait for none of them. For adapters that build their own
 * runtime over the store (the Claude Agent SDK's openSessionStore).
 */
export async function openWarmedStore(url?: string, options?: OpenEventStoreOptions): Promise<OpenedEventStore> {
  // A failure to load is the first count's to report (createTokenCounter does not keep a failed load);
  // the warm-ups only save time (their own tests say they run): a failed one is ignored.
  const tokenizer = createTokenCounter(PRELOADED_ENCODING)
    .then(warmUpAppendPath)
    .catch(() => undefined);
  const store = await openEventStore(url, options);
  await Promise.all([tokenizer, warmUpStore(store).catch(() => undefined)]);
  return store;
}
