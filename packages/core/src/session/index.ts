export type { CountedMessage, InsertionTrim, SessionCommand } from "./commands.ts";
export { decide } from "./decide.ts";
export { decideSequence } from "./decide-sequence.ts";
export { applySupersede, evolve, foldEvents } from "./evolve.ts";
export { lastTurnIndices } from "./last-turn.ts";
export {
  callsAnsweredIn,
  commandKeys,
  compactionKey,
  freshKeysOf,
  type KnownKeys,
  keysOfEvents,
  type LogKey,
  logKeysOf,
  messageKey,
  NO_KEYS,
  resultKey,
  turnDoneKey,
  turnKey,
} from "./log-keys.ts";
export { pendingCallsOf } from "./pending-calls.ts";
export { sessionErased } from "./session-erased.ts";
export {
  BATCH_MODES,
  cloneState,
  initialState,
  type LastCompaction,
  type LiveEntry,
  type MicroFailures,
  RECENT_LIMIT,
  type RecentCompaction,
  type RecentFailure,
  type SessionState,
} from "./session-state.ts";
export {
  decodeState,
  type EncodedState,
  encodeState,
  encodeStateSteps,
  STATE_FORMAT,
  sha256,
} from "./state-codec.ts";
