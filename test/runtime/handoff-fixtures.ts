import { compactRange, type Palimpsest, type Session } from "@palimpsest/runtime";
import { exchange } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";

export { exchange, rejection };

/** A session with four exchanges, the middle two compacted, so its view holds a summary marker. */
export async function compactedSession(runtime: Palimpsest): Promise<Session> {
  const session = await runtime.startSession({ model: "gpt-4.1", title: "to hand off", contextWindow: 64_000 });
  for (let n = 0; n < 4; n++) await session.append(exchange(n));
  await compactRange(session, { fromId: "a1", toId: "r2", summary: "turns 1 and 2, summarized" });
  return session;
}

/** The session.handed-off events in a session's log. */
export async function handedOffEvents(runtime: Palimpsest, sessionId: string) {
  return (await runtime.store.readStream(sessionId)).filter((e) => e.type === "session.handed-off");
}

/** Runs `hook` once, just before the first append of an event of `type` through this runtime's store. */
export function beforeAppendOf(runtime: Palimpsest, type: string, hook: () => Promise<void>): void {
  const store = runtime.store;
  const append = store.append.bind(store);
  let fired = false;
  store.append = async (sessionId, events, options) => {
    if (!fired && events.some((e) => e.type === type)) {
      fired = true;
      await hook();
    }
    return append(sessionId, events, options);
  };
}

/**
 * Makes this runtime's process "die" just after the first append of an event of `type` lands: that
 * append's caller, and every later append or read through its store, gets `new Error(message)`.
 */
export function crashAfterAppendOf(runtime: Palimpsest, type: string, message: string): void {
  const store = runtime.store;
  const append = store.append.bind(store);
  const getSession = store.getSession.bind(store);
  const readStream = store.readStream.bind(store);
  let dead = false;
  const check = () => {
    if (dead) throw new Error(message);
  };
  store.getSession = async (sessionId) => {
    check();
    return getSession(sessionId);
  };
  store.readStream = async (sessionId, options) => {
    check();
    return readStream(sessionId, options);
  };
  store.append = async (sessionId, events, options) => {
    check();
    const result = await append(sessionId, events, options);
    dead = events.some((e) => e.type === type);
    check();
    return result;
  };
}

/** What a promise settled with: its value, or the error it rejected with. */
export function settled(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => value,
    (error: unknown) => error,
  );
}
