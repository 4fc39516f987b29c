import type { CandidateStore, HandoffQueuePort, PrecompactionCandidate } from "@palimpsest/core";
import { candidateStore } from "../candidate-store/candidate-queries.ts";
import type { EngineAdapter } from "../engine/engine-adapter.ts";
import { KyselyEventStore } from "../engine/kysely-event-store.ts";
import { storeAccess } from "../engine/store-access.ts";
import { HandoffQueue } from "../handoff/handoff-queue.ts";
import type { HandoffTables } from "../handoff/handoff-table.ts";
import { STORE_FEATURES } from "./store-features.ts";

/**
 * What openEventStore returns: the log (EventStore, SnapshotStore, ChangeFeed) with every feature's
 * tables beside it, the pre-compaction candidates (CandidateStore) and the durable hand-off queue.
 */
export class OpenedEventStore extends KyselyEventStore implements CandidateStore {
  /** The durable hand-off queue on this store's database (see handoff/handoff-queue.ts). */
  readonly handoffQueue: HandoffQueuePort;
  readonly #candidates: CandidateStore;

  /** The store over `adapter`, whose database every feature's migrations have brought up to date. */
  constructor(adapter: EngineAdapter) {
    super(adapter, STORE_FEATURES);
    const { db, dialect } = storeAccess(this);
    this.handoffQueue = new HandoffQueue(db.withTables<HandoffTables>(), dialect);
    this.#candidates = candidateStore(db);
  }

  saveCandidate(candidate: PrecompactionCandidate): Promise<boolean> {
    return this.#candidates.saveCandidate(candidate);
  }

  loadCandidate(sessionId: string): Promise<PrecompactionCandidate | undefined> {
    return this.#candidates.loadCandidate(sessionId);
  }

  deleteCandidate(sessionId: string): Promise<void> {
    return this.#candidates.deleteCandidate(sessionId);
  }
}
