import { setImmediate as nextTurn } from "node:timers/promises";
import {
  decodeState,
  type EncodedState,
  type EventStore,
  encodeStateSteps,
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

/**
 * The view's size, in tokens, past which snapshots come less often: a snapshot's encoding and write cost
 * grows with the view, and a view past the context windows compaction keeps sessions within is one that
 * grows without bound (compaction off), where a snapshot every `snapshotEvery` events would cost the
 * session's whole size again and again.
 */
export const SNAPSHOT_SCALE_TOKENS = 250_000;

/**
 * Events between snapshots: `snapshotEvery` up to SNAPSHOT_SCALE_TOKENS of view, more in proportion to
 * the view past it (snapshotEvery × view / SNAPSHOT_SCALE_TOKENS; Infinity stays never). Snapshots then
 * cost about the same per appended event however large the view grows, and the events a resume replays
 * after one grow in proportion to the view it loads.
 */
export function snapshotInterval(snapshotEvery: number, liveTokens: number): number {
  return snapshotEvery * Math.max(1, liveTokens / SNAPSHOT_SCALE_TOKENS);
}

/** The longest a snapshot's encoding holds the event loop at a time, in ms (about: one entry may run over). */
const ENCODE_SLICE_MS = 2;

/**
 * Writes a snapshot of the state as it is at the call. A failure is reported to `onError` and otherwise
 * ignored: it is a cache. The state is encoded in slices of about ENCODE_SLICE_MS with a turn of the event
 * loop between them, so an append made meanwhile waits for a slice, not for the whole state's encoding.
 */
export async function saveSnapshot(
  store: SnapshotStore,
  state: SessionState,
  onError: (error: unknown) => void = () => {},
): Promise<void> {
  try {
    await store.saveSnapshot({ sessionId: state.sessionId, ...(await encodeInSlices(state)) });
  } catch (error) {
    onError(error);
  }
}

/** encodeState's result, encoded in slices of about ENCODE_SLICE_MS (encodeStateSteps) with a turn between them. */
async function encodeInSlices(state: SessionState): Promise<EncodedState> {
  const steps = encodeStateSteps(state);
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done === true) return step.value;
    if (performance.now() - sliceStart < ENCODE_SLICE_MS) continue;
    await nextTurn();
    sliceStart = performance.now();
  }
}
