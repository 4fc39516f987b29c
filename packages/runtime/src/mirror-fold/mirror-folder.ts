import { checkOptions, type MirrorKey, type MirrorLogPort, type OptionShape, OptionValues } from "@palimpsest/core";
import type { Palimpsest } from "../palimpsest/palimpsest.ts";
import { foldMirrorKey } from "./mirror-fold.ts";
import { emptyFoldMemory, type MirrorFoldMemory } from "./mirror-fold-memory.ts";

/** Options of a MirrorFolder. */
export interface MirrorFolderOptions {
  /** Quiet time (ms) after a key's last append before its trailing message is folded too; default 2000. */
  settleMs?: number;
  /**
   * How long (ms) a fold waits after the append that asked for it, gathering the appends that follow
   * into the same fold; default 200.
   */
  foldDelayMs?: number;
  /**
   * Called when a fold fails (the entries stay stored, and the next append or flush folds again), for a
   * line a fold left out, and for what `report` is given; by default one line on stderr.
   */
  onError?: (error: unknown, key: MirrorKey) => void;
}

/** Every key of MirrorFolderOptions with its value's schema (checkOptions; openSessionStore's options). */
export const MIRROR_FOLDER_OPTION_SHAPE: OptionShape<MirrorFolderOptions> = {
  settleMs: OptionValues.ms,
  foldDelayMs: OptionValues.ms,
  onError: OptionValues.fn,
};

/** Default quiet time before a key's trailing assistant message is folded. */
export const DEFAULT_SETTLE_MS = 2000;

/** Default wait of a fold for more appends to the same key (one-entry batches in the SDK's eager mode). */
export const DEFAULT_FOLD_DELAY_MS = 200;

/**
 * Keys whose fold memory (parsed lines, session states: about what the key's sessions hold) a folder
 * keeps, the most recently folded; a key beyond them is read whole again on its next fold.
 */
const KEYS_REMEMBERED = 64;

interface KeyState {
  key: MirrorKey;
  /** The last job queued for the key: folds of one key run one after another, never overlapping. */
  tail: Promise<void>;
  /** A fold of new entries is queued and has not started: further appends need no other. */
  queued: boolean;
  settleTimer: NodeJS.Timeout | undefined;
  /** Ends the queued fold's wait for more appends now (a flush or an idle wants it done). */
  endDelay: (() => void) | undefined;
}

/**
 * Folds mirrored keys into their Palimpsest sessions in the background, one fold per key at a time:
 * `touch` after each append queues a fold (unless one is queued and not started yet) that waits
 * `foldDelayMs` for more appends, holding back the trailing assistant message until the key has been
 * quiet for `settleMs`; `flush` folds everything now.
 */
export class MirrorFolder {
  readonly #runtime: Palimpsest;
  readonly #log: MirrorLogPort;
  readonly #settleMs: number;
  readonly #foldDelayMs: number;
  readonly #onError: (error: unknown, key: MirrorKey) => void;
  readonly #keys = new Map<string, KeyState>();
  /** Lines folds left out that were reported (key, generation and seq), so each is reported once. */
  readonly #unreadable = new Set<string>();
  /** What the last fold of each recently folded key left (its least recent first), so the next reads only what is new. */
  readonly #memories = new Map<string, MirrorFoldMemory>();

  constructor(runtime: Palimpsest, log: MirrorLogPort, options: MirrorFolderOptions = {}) {
    checkOptions("MirrorFolder", options, MIRROR_FOLDER_OPTION_SHAPE);
    this.#runtime = runtime;
    this.#log = log;
    this.#settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    this.#foldDelayMs = options.foldDelayMs ?? DEFAULT_FOLD_DELAY_MS;
    this.#onError = options.onError ?? reportFoldError;
  }

  /** New entries are stored for `key`: fold them (all but an open trailing message) and settle later. */
  touch(key: MirrorKey): void {
    const state = this.#state(key);
    if (!state.queued) {
      state.queued = true;
      void this.#enqueue(state, async () => {
        // Not unref'd: a flush or close awaiting this fold must keep the process alive until it is done.
        await new Promise<void>((wait) => {
          const timer = setTimeout(wait, this.#foldDelayMs);
          state.endDelay = () => {
            clearTimeout(timer);
            wait();
          };
        });
        state.endDelay = undefined;
        state.queued = false;
        await this.#fold(state, false);
      });
    }
    clearTimeout(state.settleTimer);
    state.settleTimer = setTimeout(() => {
      state.settleTimer = undefined;
      void this.#enqueue(state, () => this.#fold(state, true));
    }, this.#settleMs);
    state.settleTimer.unref();
  }

  /** Folds every entry of `key` (or of every key touched here) now, trailing messages included. */
  async flush(key?: MirrorKey): Promise<void> {
    const states = key === undefined ? [...this.#keys.values()] : [this.#state(key)];
    await Promise.all(
      states.map((state) => {
        clearTimeout(state.settleTimer);
        state.settleTimer = undefined;
        state.endDelay?.();
        return this.#enqueue(state, () => this.#fold(state, true));
      }),
    );
  }

  /** Waits for the key's queued folds, starting none and cancelling its settle (before a delete). */
  async idle(key: MirrorKey): Promise<void> {
    const state = this.#keys.get(keyString(key));
    if (state === undefined) return;
    clearTimeout(state.settleTimer);
    state.settleTimer = undefined;
    state.endDelay?.();
    await state.tail;
  }

  /** Reports a problem of `key` through `onError` (a writer's, such as an entry it passed over). */
  report(error: unknown, key: MirrorKey): void {
    this.#onError(error, key);
  }

  /** Cancels every settle timer (the store is closing; `flush` first to fold what they would have). */
  stop(): void {
    for (const state of this.#keys.values()) clearTimeout(state.settleTimer);
  }

  #enqueue(state: KeyState, job: () => Promise<void>): Promise<void> {
    const tail = state.tail.then(job);
    state.tail = tail;
    void tail.then(() => {
      // Nothing queued or waiting to settle: the key is forgotten until its next append.
      if (state.tail === tail && !state.queued && state.settleTimer === undefined) {
        this.#keys.delete(keyString(state.key));
      }
    });
    return tail;
  }

  async #fold(state: KeyState, settle: boolean): Promise<void> {
    try {
      await foldMirrorKey(this.#runtime, this.#log, state.key, {
        settle,
        memory: this.#memory(state.key),
        onUnreadable: (seq, error, generation) => this.#reportUnreadable(state.key, generation, seq, error),
      });
    } catch (error) {
      this.#onError(error, state.key);
    }
  }

  /** The fold memory of `key`, now the most recently used; the least recent is forgotten past KEYS_REMEMBERED. */
  #memory(key: MirrorKey): MirrorFoldMemory {
    const id = keyString(key);
    const memory = this.#memories.get(id) ?? emptyFoldMemory();
    this.#memories.delete(id);
    this.#memories.set(id, memory);
    for (const oldest of this.#memories.keys()) {
      if (this.#memories.size <= KEYS_REMEMBERED) break;
      this.#memories.delete(oldest);
    }
    return memory;
  }

  /** Reports a line the fold left out, once per line (key, generation and seq) for this folder's life. */
  #reportUnreadable(key: MirrorKey, generation: number, seq: number, error: unknown): void {
    const id = `${keyString(key)}#${generation}#${seq}`;
    if (this.#unreadable.has(id)) return;
    this.#unreadable.add(id);
    this.#onError(error, key);
  }

  #state(key: MirrorKey): KeyState {
    const id = keyString(key);
    let state = this.#keys.get(id);
    if (state === undefined) {
      state = { key, tail: Promise.resolve(), queued: false, settleTimer: undefined, endDelay: undefined };
      this.#keys.set(id, state);
    }
    return state;
  }
}

function keyString(key: MirrorKey): string {
  return JSON.stringify([key.project, key.session, key.subpath ?? ""]);
}

/** The default report of a failed fold (or of any problem reported): one line on stderr with the error. */
function reportFoldError(error: unknown, key: MirrorKey): void {
  const name = [key.project, key.session, key.subpath].filter((p) => p !== undefined).join("/");
  process.stderr.write(`palimpsest: mirrored transcript ${name}: ${String(error)}\n`);
}
