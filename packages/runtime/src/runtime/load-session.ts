import {
  decodeState,
  type EventStore,
  encodeState,
  foldEvents,
  initialState,
  type SessionState,
  type SnapshotStore,
} from "@palimpsest/core";

/** Events read per query while replaying, so a long log is never held in memory all at once. */
const REPLAY_PAGE = 2_000;

/** How a session's state was loaded: from a snapshot plus the events after it, or by full replay. */
export interface LoadedSession {
  state: SessionState;
  snapshotSeq: number;
  replayedEvents: number;
}

/**
 * Loads a session's state: the snapshot (a cache, verified by checksum and format) plus the events
 * after it; a missing, stale or corrupted snapshot falls back to replaying the whole log.
 */
export async function loadSession(
  store: EventStore & SnapshotStore,
  sessionId: string,
  useSnapshot = true,
): Promise<LoadedSession> {
  const snapshot = useSnapshot ? await store.loadSnapshot(sessionId) : undefined;
  const cached = snapshot === undefined ? undefined : decodeState(snapshot, sessionId);
  const state = cached ?? initialState(sessionId);
  let replayedEvents = 0;
  for (;;) {
    const fromSeq = state.lastSeq + 1;
    const page = await store.readStream(sessionId, { fromSeq, toSeq: fromSeq + REPLAY_PAGE - 1 });
    foldEvents(state, page);
    replayedEvents += page.length;
    if (page.length < REPLAY_PAGE) break;
  }
  if (cached !== undefined && replayedEvents === 0) {
    const meta = await store.getSession(sessionId);
    if (meta === undefined || meta.version !== cached.lastSeq) return loadSession(store, sessionId, false);
  }
  return { state, snapshotSeq: cached?.lastSeq ?? 0, replayedEvents };
}

/** Writes a snapshot of the state. A failure is reported to `onError` and otherwise ignored: it is a cache. */
export async function saveSnapshot(
  store: SnapshotStore,
  state: SessionState,
  onError: (error: unknown) => void = () => {},
): Promise<void> {
  try {
    await store.saveSnapshot({ sessionId: state.sessionId, ...encodeState(state) });
  } catch (error) {
    onError(error);
  }
}
