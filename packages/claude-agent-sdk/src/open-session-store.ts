import {
  checkOptions,
  definedFields,
  type Keyring,
  type OptionShape,
  OptionValues,
  ValidationError,
} from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import {
  eraseLeftovers,
  MIRROR_FOLDER_OPTION_SHAPE,
  MirrorFolder,
  type MirrorFolderOptions,
  openWarmedStore,
  Palimpsest,
} from "@palimpsest/runtime";
import { EVENT_STORE_OPTION_SHAPE, MirrorLog } from "@palimpsest/store";
import { PalimpsestSessionStore } from "./palimpsest-session-store.ts";
import { rehearseSessionStoreAppend } from "./session-store-warm-up.ts";
import type { SummaryFold } from "./summary-fold.ts";

/** Options of openSessionStore. Exact: an unknown key is VALIDATION. */
export interface OpenSessionStoreOptions extends MirrorFolderOptions {
  /** `postgres://…`, a SQLite file path, or `:memory:`; default: `./.palimpsest/palimpsest.db`. */
  url?: string;
  /** SQLite: how long (ms) to wait for another process's lock before failing (default 5000). */
  sqliteBusyTimeoutMs?: number;
  /**
   * The tenant whose sessions the store keeps (default `default`): its keys, entries and folded sessions
   * are that tenant's alone, as openEventStore's `tenant` (docs/tenants.md). Open one store per tenant.
   */
  tenant?: string;
  /** Encrypts content under a key per session, as openEventStore's `keyring` (docs/encryption.md). */
  keyring?: Keyring;
}

/** Every key of OpenSessionStoreOptions with its value's schema (the compiler keeps it complete and exact). */
const OPTION_SHAPE: OptionShape<OpenSessionStoreOptions> = {
  url: OptionValues.any, // openerFor checks it, naming the forms a URL takes
  sqliteBusyTimeoutMs: EVENT_STORE_OPTION_SHAPE.sqliteBusyTimeoutMs,
  tenant: EVENT_STORE_OPTION_SHAPE.tenant,
  keyring: EVENT_STORE_OPTION_SHAPE.keyring,
  ...MIRROR_FOLDER_OPTION_SHAPE,
};

/**
 * Opens (creating and migrating) the Palimpsest store at `url` as a Claude Agent SDK SessionStore:
 * `query({ prompt, options: { sessionStore: await openSessionStore({ url }) } })`. Loads the tokenizer and
 * warms the store's appends as openPalimpsest does (openWarmedStore), so no fold loads it while the SDK
 * appends, and runs a SessionStore append once, rolled back (nothing stored), so the SDK's first append
 * finds its code compiled. Finishes what a process that died left: sessions of deleted keys still holding
 * content are erased, and entries stored but not yet folded are folded in the background. Needs
 * `@anthropic-ai/claude-agent-sdk`.
 */
export async function openSessionStore(options: OpenSessionStoreOptions = {}): Promise<PalimpsestSessionStore> {
  checkOptions("openSessionStore", options, OPTION_SHAPE);
  const foldSummary = await loadSummaryFold();
  const { url, sqliteBusyTimeoutMs, tenant, keyring, ...folding } = options;
  const store = await openWarmedStore(url, definedFields({ sqliteBusyTimeoutMs, tenant, keyring }));
  const runtime = new Palimpsest({ store, counterFor: createTokenCounter });
  const log = new MirrorLog(store);
  const folder = new MirrorFolder(runtime, log, folding);
  try {
    // Only a saving: a refused rehearsal leaves the first append to prepare what it needs.
    await rehearseSessionStoreAppend(log, foldSummary).catch(() => undefined);
    await eraseLeftovers(runtime, log);
    for (const key of await log.unfolded()) folder.touch(key);
  } catch (error) {
    await runtime.close();
    throw error;
  }
  return new PalimpsestSessionStore({ runtime, log, folder, foldSummary });
}

/** The SDK's `foldSessionSummary`, loaded on first use: the SDK is an optional peer dependency. */
async function loadSummaryFold(): Promise<SummaryFold> {
  try {
    return (await import("@anthropic-ai/claude-agent-sdk")).foldSessionSummary;
  } catch (cause) {
    throw new ValidationError(
      "openSessionStore needs @anthropic-ai/claude-agent-sdk: npm install @anthropic-ai/claude-agent-sdk",
      ["@anthropic-ai/claude-agent-sdk: not installed"],
      { cause, path: "@anthropic-ai/claude-agent-sdk" },
    );
  }
}
