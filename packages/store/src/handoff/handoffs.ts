import { InvariantViolation, ValidationError } from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { Session } from "../runtime/session.ts";
import type { ClaimOptions, HandoffQueue } from "./handoff-queue.ts";
import { type Handoff, type HandoffClaim, type HandoffClaimRef, toHandoff } from "./handoff-record.ts";
import type { HandoffStatus } from "./handoff-table.ts";

/**
 * What the hand-off service needs from the runtime: loading sessions and the one hand-off path (without
 * the public `handOff`'s refusal of sessions with an open queued hand-off, since it completes those).
 */
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

  /**
   * Queues a hand-off of `session` (a handle or an id); an error when it was handed off or has an open
   * one. Re-reads the source after queueing: if another hand-off sealed it meanwhile, the request is
   * failed at once and this throws `session-handed-off`.
   */
  async request(session: Session | string, options: RequestHandoffOptions = {}): Promise<Handoff> {
    const source = typeof session === "string" ? await this.#runtime.resume(session) : session;
    if (typeof session !== "string") await source.refresh();
    if (source.state.handedOffTo !== undefined) throw handedOff(source.id, source.state.handedOffTo);
    const { target, reason, successorSessionId } = options;
    const requested = await this.#queue.insert({
      sourceSessionId: source.id,
      successorSessionId: successorSessionId ?? uuidv7(),
      ...(target === undefined ? {} : { target }),
      ...(reason === undefined ? {} : { reason }),
    });
    await source.refresh();
    const sealedTo = source.state.handedOffTo;
    if (sealedTo === undefined) return requested;
    // A direct hand-off checked for open requests before this one was queued, then sealed the source.
    const cancelled = await this.#queue.cancel(requested.handoffId, `session was handed off to ${sealedTo}`);
    if (cancelled === undefined && sealedTo === requested.successorSessionId) return this.get(requested.handoffId);
    throw handedOff(source.id, sealedTo);
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
   * Finishes the hand-off and returns the successor. First records under the claim that the completion
   * began (after which `fail` refuses), then seals the source and starts the successor from its sealed
   * view. Safe to retry, and to run twice at once: every step skips what an earlier attempt already did.
   * When the source was sealed to another successor, fails the hand-off and throws `session-handed-off`.
   */
  async complete(claim: HandoffClaimRef): Promise<Session> {
    const row = await this.#queue.row(claim.handoffId);
    if (row.status === "completed" && row.claim_token === claim.token) {
      return this.#runtime.resume(row.successor_session_id); // an earlier attempt got this far
    }
    await this.#queue.startCompletion(claim);
    const source = await this.#runtime.resume(row.source_session_id);
    let successor: Session;
    try {
      successor = await this.#runtime.handOff(source, {
        toSessionId: row.successor_session_id,
        ...(row.reason === null ? {} : { reason: row.reason }),
      });
    } catch (error) {
      const sealedTo = source.state.handedOffTo;
      if (sealedTo === undefined || sealedTo === row.successor_session_id) throw error;
      await this.#queue.finish(
        claim,
        { status: "failed", failureReason: `session was handed off to ${sealedTo}` },
        true,
      );
      throw error;
    }
    await this.#queue.finish(claim, { status: "completed" });
    return successor;
  }

  /**
   * Gives the hand-off up with a reason; it never sealed the source. Refused (`handoff-completing`) once a
   * completion began, atomically with the update that would fail it, and (`session-handed-off`) when the
   * source was sealed to this hand-off's successor; allowed when another hand-off sealed the source.
   */
  async fail(claim: HandoffClaimRef, reason: string): Promise<Handoff> {
    if (reason.trim() === "") throw new ValidationError("a failure reason is required", ["reason is empty"]);
    const row = await this.#queue.row(claim.handoffId);
    if (row.status === "failed" && row.claim_token === claim.token) return toHandoff(row);
    await this.#queue.check(claim);
    const source = await this.#runtime.resume(row.source_session_id);
    const sealedTo = source.state.handedOffTo;
    if (sealedTo === row.successor_session_id) {
      throw new InvariantViolation(
        "session-handed-off",
        `session ${source.id} was already handed off to ${sealedTo}; complete hand-off ${row.handoff_id} instead`,
        { sessionId: source.id, ids: [sealedTo] },
      );
    }
    return this.#queue.finish(claim, { status: "failed", failureReason: reason }, sealedTo !== undefined);
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

/** The error of a request for a session that was already handed off. */
function handedOff(sessionId: string, to: string): InvariantViolation {
  return new InvariantViolation("session-handed-off", `session ${sessionId} was already handed off to ${to}`, {
    sessionId,
    ids: [to],
  });
}
