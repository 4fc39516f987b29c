import type { Palimpsest, Session } from "@palimpsest/runtime";

/** A fault child's session handles by id: each resumed once on first use, or kept as started or handed to. */
export class SessionHandles {
  readonly #runtime: Palimpsest;
  readonly #handles = new Map<string, Session>();

  constructor(runtime: Palimpsest) {
    this.#runtime = runtime;
  }

  /** The handle of `sessionId`, resumed the first time it is asked for. */
  async get(sessionId: string): Promise<Session> {
    const known = this.#handles.get(sessionId);
    if (known !== undefined) return known;
    const session = await this.#runtime.resume(sessionId);
    this.#handles.set(sessionId, session);
    return session;
  }

  /** Keeps a handle this child already has (a session it started, a hand-off's successor). */
  keep(session: Session): void {
    this.#handles.set(session.id, session);
  }
}
