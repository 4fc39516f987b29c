import { InvariantViolation, ValidationError } from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { Session } from "../runtime/session.ts";
import type { ClaimOptions, HandoffQueue } from "./handoff-queue.ts";
import { type Handoff, type HandoffClaim, type HandoffClaimRef, toHandoff } from "./handoff-record.ts";
import type { HandoffStatus } from "./handoff-table.ts";

/** What the hand-off service needs from the runtime: loading sessions and the one hand-off path. */
export interface HandoffRuntime {
  resume(sessionId: string): Promise<Session>;
  handOff(from: Session, options: { toSessionId: string; reason?: string }): Promise<Session>;
}

/** Options of a hand-off request. */
export interface RequestHandoffOptions {
  /** Which platform or process kind should take it (claimers may filter on it). */
  target?: string;
  reason?: string;
  /** The successor's id (default: a new UUIDv7), fixed now so every completion attempt finishes the same one. */
  successorSessionId?: string;
}

/**
 * Claimable hand-offs across processes: one process requests, another claims under a lease and completes
 * it (starting the successor from the source's resume state and sealing the source) or fails it (the
 * source stays writable). Every transition after the claim is fenced by the claim's token and lease.
 */
export class Handoffs {
  readonly #runtime: HandoffRuntime;
  readonly #queue: HandoffQueue;

  /** Use it as `runtime.handoffs`. */
  constructor(runtime: HandoffRuntime, queue: HandoffQueue) {
    this.#runtime = runtime;
    this.#queue = queue;
  }

  /** Queues a hand-off of `session` (a handle or an id); an error when it was handed off or has an open one. */
  async request(session: Session | string, options: RequestHandoffOptions = {}): Promise<Handoff> {
    const source = typeof session === "string" ? await this.#runtime.resume(session) : session;
    if (typeof session !== "string") await source.refresh();
    const handedOffTo = source.state.handedOffTo;
    if (handedOffTo !== undefined) {
      throw new InvariantViolation(
        "session-handed-off",
        `session ${source.id} was already handed off to ${handedOffTo}`,
        {
          sessionId: source.id,
          ids: [handedOffTo],
        },
      );
    }
    const { target, reason, successorSessionId } = options;
    return this.#queue.insert({
      sourceSessionId: source.id,
      successorSessionId: successorSessionId ?? uuidv7(),
      ...(target === undefined ? {} : { target }),
      ...(reason === undefined ? {} : { reason }),
    });
  }

  /** Claims the oldest pending or lease-expired hand-off; undefined when there is none to take. */
  claim(options: ClaimOptions): Promise<HandoffClaim | undefined> {
    return this.#queue.claim(options);
  }

  /** Extends the claim's lease; ClaimLost when another claimer took over or the lease ran out. */
  renew(claim: HandoffClaimRef, leaseMs: number): Promise<HandoffClaim> {
    return this.#queue.renew(claim, leaseMs);
  }

  /**
   * Finishes the hand-off and returns the successor. Safe to retry after a crash at any step: the
   * successor id was fixed at request time and every step skips what an earlier attempt already did.
   */
  async complete(claim: HandoffClaimRef): Promise<Session> {
    const row = await this.#queue.row(claim.handoffId);
    if (row.status === "completed" && row.claim_token === claim.token) {
      return this.#runtime.resume(row.successor_session_id); // an earlier attempt got this far
    }
    await this.#queue.check(claim);
    const source = await this.#runtime.resume(row.source_session_id);
    const successor = await this.#runtime.handOff(source, {
      toSessionId: row.successor_session_id,
      ...(row.reason === null ? {} : { reason: row.reason }),
    });
    await this.#queue.finish(claim, { status: "completed" });
    return successor;
  }

  /** Gives the hand-off up with a reason; the source stays writable (refused once the source was sealed). */
  async fail(claim: HandoffClaimRef, reason: string): Promise<Handoff> {
    if (reason.trim() === "") throw new ValidationError("a failure reason is required", ["reason is empty"]);
    const row = await this.#queue.row(claim.handoffId);
    if (row.status === "failed" && row.claim_token === claim.token) return toHandoff(row);
    await this.#queue.check(claim);
    const source = await this.#runtime.resume(row.source_session_id);
    const handedOffTo = source.state.handedOffTo;
    if (handedOffTo !== undefined) {
      throw new InvariantViolation(
        "session-handed-off",
        `session ${source.id} was already handed off to ${handedOffTo}; complete hand-off ${row.handoff_id} instead`,
        { sessionId: source.id, ids: [handedOffTo] },
      );
    }
    return this.#queue.finish(claim, { status: "failed", failureReason: reason });
  }

  /** One hand-off by id; NotFoundError when there is none. */
  async get(handoffId: string): Promise<Handoff> {
    return toHandoff(await this.#queue.row(handoffId));
  }

  /** The hand-offs, oldest first, optionally of one status. */
  list(filter: { status?: HandoffStatus } = {}): Promise<Handoff[]> {
    return this.#queue.list(filter);
  }
}
