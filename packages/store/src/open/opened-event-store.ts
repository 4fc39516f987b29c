import type { CandidateStore, HandoffQueuePort, PrecompactionCandidate, RuntimeStore } from "@palimpsest/core";
import { candidateStore } from "../candidate-store/candidate-queries.ts";
import type { ContentCipher } from "../encryption/content-cipher.ts";
import type { Engine } from "../engine/dialect.ts";
import type { EngineAdapter } from "../engine/engine-adapter.ts";
import { KyselyEventStore, type WarmUpAppend } from "../engine/kysely-event-store.ts";
import { openCandidate, sealCandidate } from "../engine/sealed-rows.ts";
import type { SessionPage, SessionPageOptions } from "../engine/session-page.ts";
import { guardStorage } from "../engine/storage-guard.ts";
import { storeAccess } from "../engine/store-access.ts";
import { HandoffQueue } from "../handoff/handoff-queue.ts";
import type { HandoffTables } from "../handoff/handoff-table.ts";
import { SealedHandoffQueue } from "../handoff/sealed-handoff-queue.ts";
import { STORE_FEATURES } from "./store-features.ts";

/**
 * What openEventStore returns: everything a runtime needs (the log, snapshots, change feed, pre-compaction
 * candidates, the durable hand-off queue, sessions by name), its engine and the catalogue's pages. The
 * audit read models and the SDK mirror take one to reach its database.
 */
export interface OpenedEventStore extends RuntimeStore {
  /** Which engine holds the store. */
  readonly engine: Engine;
  /** The tenant whose sessions the store reads and writes (OpenEventStoreOptions.tenant). */
  readonly tenant: string;
  /** One page of the session catalogue, newest first (keyset paging: see SessionPageOptions). */
  listSessionPage(options?: SessionPageOptions): Promise<SessionPage>;
  /**
   * Runs `appends` through the append path in a transaction that is rolled back, writing nothing, so a
   * process's first real append finds its statements prepared (openPalimpsest calls it at open). A
   * StorageError when the database refuses (a read-only role, a lock held): it only costs the saving.
   */
  warmUpAppends(appends: readonly WarmUpAppend[]): Promise<void>;
}

/**
 * The SQL store openEventStore opens: the log on kysely with every feature's tables beside it, encrypting
 * content (the candidates' and the hand-off queue's texts too) with `cipher` when it was opened with a keyring.
 */
export class SqlEventStore extends KyselyEventStore implements OpenedEventStore, CandidateStore {
  /** The durable hand-off queue on this store's database (see handoff/handoff-queue.ts). */
  readonly handoffQueue: HandoffQueuePort;
  readonly #candidates: CandidateStore;

  /**
   * The store of `tenant` over `adapter`, whose database every feature's migrations have brought up to
   * date, indexing messages for search unless `search` is false.
   */
  constructor(adapter: EngineAdapter, tenant: string, cipher: ContentCipher | undefined, search = true) {
    super(adapter, STORE_FEATURES, tenant, cipher, search);
    const { db, dialect } = storeAccess(this);
    const queue = new HandoffQueue(db.withTables<HandoffTables>(), dialect);
    this.handoffQueue = cipher === undefined ? queue : new SealedHandoffQueue(queue, cipher);
    this.#candidates = candidateStore(db, dialect);
  }

  async saveCandidate(candidate: PrecompactionCandidate): Promise<boolean> {
    const cipher = this.cipher;
    const stored =
      cipher === undefined ? candidate : await guardStorage("saveCandidate", () => sealCandidate(cipher, candidate));
    const saved = await this.#candidates.saveCandidate(stored);
    if (!saved && cipher !== undefined)
      await guardStorage("saveCandidate", () => this.forgetKeyIfErased(candidate.key.sessionId));
    return saved;
  }

  async loadCandidate(sessionId: string): Promise<PrecompactionCandidate | undefined> {
    const stored = await this.#candidates.loadCandidate(sessionId);
    const cipher = this.cipher;
    if (stored === undefined || cipher === undefined) return stored;
    return guardStorage("loadCandidate", () => openCandidate(cipher, stored));
  }

  deleteCandidate(sessionId: string): Promise<void> {
    return this.#candidates.deleteCandidate(sessionId);
  }
}
