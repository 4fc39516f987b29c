import {
  checkOptions,
  definedFields,
  type Keyring,
  type OptionShape,
  OptionValues,
  optionsSchema,
  ValidationError,
} from "@palimpsest/core";
import type { CompactionSettings } from "../compaction/compaction-settings.ts";
import type { Session } from "../runtime/session.ts";
import { openPalimpsest } from "./open-palimpsest.ts";
import type { Palimpsest, StartSessionOptions } from "./palimpsest.ts";

/**
 * What every SDK adapter's opener takes from its caller (`openAgentsSession`, `openConversation`), with
 * the adapter's own kind of compaction settings. Exact: see checkAdapterOptions.
 */
export interface AdapterSessionOptions<Compaction = CompactionSettings> {
  /** `postgres://…`, a SQLite file path, or `:memory:`; default `./.palimpsest/palimpsest.db`. Not with `runtime`. */
  url?: string;
  /** The tenant whose sessions the store at `url` holds (see openPalimpsest; default `default`). Not with `runtime`. */
  tenant?: string;
  /** Encrypts content under a key per session (see openPalimpsest, docs/encryption.md). Not with `runtime`. */
  keyring?: Keyring;
  /** A session id or name (an imported session's source id) to continue; a new session (under this id, when given) otherwise. */
  sessionId?: string | undefined;
  /** The model a new session starts with (it picks the tokenizer). */
  model?: string;
  /** The model's context window: a new session's, and the window compaction keeps the view within. */
  contextWindow?: number;
  /** How the session compacts (policy, profile, summarizer, …; see docs/compaction.md). */
  compaction?: Compaction;
  /** A runtime to share (several sessions, one store); closing the adapter leaves it open. */
  runtime?: Palimpsest;
}

/** Every key of AdapterSessionOptions but `compaction` (each adapter has its kind), with its value's schema. */
const ADAPTER_OPTION_SHAPE: OptionShape<Omit<AdapterSessionOptions, "compaction">> = {
  url: OptionValues.any, // openerFor checks it, naming the forms a URL takes
  tenant: OptionValues.text,
  keyring: OptionValues.object,
  sessionId: OptionValues.text,
  model: OptionValues.text,
  contextWindow: OptionValues.count,
  runtime: OptionValues.object,
};

/**
 * Refuses an adapter opener's options (checkOptions, VALIDATION naming `fn`): a key AdapterSessionOptions
 * does not have, nor `extra` (an adapter's own options, with their schemas), or a value its schema refuses;
 * `compaction` is checked against `compaction`, the shape of the adapter's kind of settings.
 */
export function checkAdapterOptions<Options extends AdapterSessionOptions<object>>(
  fn: string,
  options: Options,
  compaction: OptionShape<NonNullable<Options["compaction"]>>,
  extra: OptionShape<Omit<Options, keyof AdapterSessionOptions>>,
): void {
  const shape = { ...ADAPTER_OPTION_SHAPE, compaction: optionsSchema(compaction), ...extra };
  checkOptions(fn, options, shape as OptionShape<Options>);
}

/** Where an SDK adapter's session lives and how a new one starts: what every adapter's opener takes. */
export interface RuntimeSessionOptions {
  /** `postgres://…`, a SQLite file path, or `:memory:`; default `./.palimpsest/palimpsest.db`. Not with `runtime`. */
  url?: string;
  /** The tenant of the store opened at `url` (a given runtime serves its own). Not with `runtime`. */
  tenant?: string;
  /** The keyring of the store opened at `url` (a given runtime has its own). Not with `runtime`. */
  keyring?: Keyring;
  /** A runtime to share (several sessions, one store); the caller keeps it and closes it. */
  runtime?: Palimpsest;
  /** The compaction settings of the runtime opened for `url` (a given runtime keeps its own). */
  compaction?: CompactionSettings;
  /** A session id or name to continue; a new session (with this id, when given) otherwise. */
  sessionId?: string;
  /** What a new session starts with. */
  start?: StartSessionOptions;
}

/** The runtime and session an adapter wraps, and whether the runtime was opened for it (then it closes it). */
export interface RuntimeSession {
  runtime: Palimpsest;
  session: Session;
  ownsRuntime: boolean;
}

/**
 * Opens the runtime at `url` (or takes the given one) and resumes the session `sessionId` names, or
 * starts it (Palimpsest.resumeOrStart). `url`, `tenant` or `keyring` with `runtime` is VALIDATION naming
 * `fn` (a given runtime has its store, tenant and keyring). A runtime opened here is closed again when the session cannot be had.
 */
export async function openRuntimeSession(fn: string, options: RuntimeSessionOptions): Promise<RuntimeSession> {
  const { url, tenant, keyring, runtime: given, compaction, sessionId, start } = options;
  for (const [name, value] of [
    ["url", url],
    ["tenant", tenant],
    ["keyring", keyring],
  ] as const) {
    if (value !== undefined && given !== undefined) {
      throw new ValidationError(`${fn} takes ${name} or runtime, not both`, [`${name}: given with runtime`], {
        path: name,
      });
    }
  }
  const runtime = given ?? (await openPalimpsest(definedFields({ url, tenant, keyring, compaction })));
  try {
    return { runtime, session: await runtime.resumeOrStart(sessionId, start), ownsRuntime: given === undefined };
  } catch (error) {
    if (given === undefined) await runtime.close();
    throw error;
  }
}
