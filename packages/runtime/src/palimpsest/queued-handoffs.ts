import {
  type ClaimOptions,
  checkOptions,
  definedFields,
  type Handoff,
  type HandoffClaim,
  type HandoffClaimRef,
  type HandoffQueuePort,
  type HandoffStatus,
  InvariantViolation,
  type OptionShape,
  OptionValues,
  sessionErased,
  ValidationError,
} from "@palimpsest/core";
import { uuidv7 } from "uuidv7";
import type { Session } from "../runtime/session.ts";
import { isSuccessorRefused } from "./hand-off-session.ts";

/**
 * What the hand-off service needs from the runtime: loading sessions and the one hand-off path (without
 * the public `handOff`'s refusal of sessions with an open queued hand-off, since it completes those).
 */
export interface HandoffRuntime {
  resume(sessionId: string): Promise<Session>;
  handOff(from: Session, options: { toSessionId: string; reason?: string }): Promise<Session>;
  /** Refuses a successor id a hand-off of `fromId` could never start (see checkSuccessorId in hand-off-session.ts). */
  checkSuccessorId(fromId: string, toSessionId: string): Promise<void>;
}

/** Options of a hand-off request. */
export interface RequestHandoffOptions {
  /** Which platform or process kind should take it (claimers may filter on it). */
  target?: string;
  reason?: string;
  /** The successor's id (default: a new UUIDv7), fixed now so every completion attempt finishes the same one. */
  successorSessionId?: string;
}

/** Every key of RequestHandoffOptions with its value's schema (checkOptions). */
const REQUEST_OPTION_SHAPE: OptionShape<RequestHandoffOptions> = {
  target: OptionValues.text,
  reason: OptionValues.text,
  successorSessionId: OptionValues.text,
};

/**
 * Claimable hand-offs across processes: one process requests, another claims under a lease and completes
 * it (starting the successor from the source's resume state and sealing the source) or fails it (the
 * source stays writable). Every transition after the claim is fenced by the claim's token and lease,
 * but the last one of a completion: once the source is sealed to the successor, it can only complete.
 */
export class Handoffs {
  readonly #runtime: HandoffRuntime;
  readonly #queue: HandoffQueuePort;

  /** Use it as `runtime.handoffs`. */
  constructor(runtime: HandoffRuntime, queue: HandoffQueuePort) {
    this.#runtime = runtime;
    this.#queue = queue;
  }

  /**
   * Queues a hand-off of `session` (a handle or an id); an error when it was handed off or has an open
   * one, or when `successorSessionId` could never be started (empty, the source's own id, or an existing
   * session not its hand-off successor). Re-reads the source after queueing: if another hand-off sealed
   * it meanwhile, the request is failed at once and this throws `session-handed-off`.
   */
  async request(session: Session | string, options: RequestHandoffOptions = {}): Promise<Handoff> {
    checkOptions("handoffs.request", options, REQUEST_OPTION_SHAPE);
    const source = typeof session === "string" ? await this.#runtime.resume(session) : session;
    if (typeof session !== "string") await source.refresh();
    if (source.state.handedOffTo !== undefined) throw handedOff(source.id, source.state.handedOffTo);
    if (source.state.erasedAt !== undefined) throw sessionErased(source.id, "it cannot be handed off");
    const { target, reason, successorSessionId = uuidv7() } = options;
    await this.#runtime.checkSuccessorId(source.id, successorSessionId);
    const requested = await this.#queue.insert({
      sourceSessionId: source.id,
      successorSessionId,
      ...definedFields({ target }),
      ...definedFields({ reason }),
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
   * Finishes the hand-off and returns the successor. First checks the successor id (a hand-off whose
   * successor could never be started is failed, and the check's error thrown), then records under the
   * claim that the completion began (after which `fail` refuses), then seals the source, starts the
   * successor with its sealed view, and marks the hand-off completed (no lease needed once sealed).
   * Safe to retry, and to run twice at once: every step skips what an earlier attempt already did.
   * When the source was sealed to another successor, fails the hand-off and throws `session-handed-off`.
   */
  async complete(claim: HandoffClaimRef): Promise<Session> {
    const record = await this.#queue.read(claim.handoffId);
    if (record.status === "completed" && record.claimToken === claim.token) {
      return this.#runtime.resume(record.successorSessionId); // an earlier attempt got this far
    }
    // An earlier attempt under this claim decided already (its lease may have run out since, harmlessly).
    const decided =
      record.status === "claimed" && record.claimToken === claim.token && record.completionStartedAt !== undefined;
    if (!decided) {
      await this.#refuseBadSuccessor(claim, record.sourceSessionId, record.successorSessionId);
      await this.#queue.startCompletion(claim);
    }
    const source = await this.#runtime.resume(record.sourceSessionId);
    let successor: Session;
    try {
      successor = await this.#runtime.handOff(source, {
        toSessionId: record.successorSessionId,
        ...definedFields({ reason: record.reason }),
      });
    } catch (error) {
      // Sealed to this successor: a retry finishes it. Otherwise, a hand-off that can never complete fails.
      const failureReason = cannotComplete(source.state.handedOffTo, record.successorSessionId, error);
      if (failureReason !== undefined) await this.#queue.finish(claim, { status: "failed", failureReason }, true);
      throw error;
    }
    // Sealed to this row's successor, which holds its view: completed is the only correct end now.
    await this.#queue.markCompleted(claim.handoffId);
    return successor;
  }

  /**
   * Gives the hand-off up with a reason; it never sealed the source. Refused (`handoff-completing`) once a
   * completion began, atomically with the update that would fail it, and (`session-handed-off`) when the
   * source was sealed to this hand-off's successor; allowed when another hand-off sealed the source.
   */
  async fail(claim: HandoffClaimRef, reason: string): Promise<Handoff> {
    if (reason.trim() === "") throw new ValidationError("a failure reason is required", ["reason is empty"]);
    const { claimToken, ...handoff } = await this.#queue.read(claim.handoffId);
    if (handoff.status === "failed" && claimToken === claim.token) return handoff;
    await this.#queue.check(claim);
    const source = await this.#runtime.resume(handoff.sourceSessionId);
    const sealedTo = source.state.handedOffTo;
    if (sealedTo === handoff.successorSessionId) {
      throw new InvariantViolation(
        "session-handed-off",
        `session ${source.id} was already handed off to ${sealedTo}; complete hand-off ${handoff.handoffId} instead`,
        { sessionId: source.id, ids: [sealedTo] },
      );
    }
    return this.#queue.finish(claim, { status: "failed", failureReason: reason }, sealedTo !== undefined);
  }

  /**
   * Checks the successor id before a completion is decided; when it could never be started, fails the
   * hand-off under the claim (even one whose completion an earlier claimant began) and throws the refusal.
   */
  async #refuseBadSuccessor(claim: HandoffClaimRef, sourceId: string, successorId: string): Promise<void> {
    try {
      await this.#runtime.checkSuccessorId(sourceId, successorId);
    } catch (error) {
      const failureReason = cannotComplete(undefined, successorId, error);
      if (failureReason === undefined) throw error;
      await this.#queue.finish(claim, { status: "failed", failureReason }, true);
      throw error;
    }
  }

  /** One hand-off by id; NotFoundError when there is none. */
  async get(handoffId: string): Promise<Handoff> {
    const { claimToken: _token, ...handoff } = await this.#queue.read(handoffId);
    return handoff;
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

/**
 * Why a hand-off to `successorId` can never complete after `error`, given where its source is sealed;
 * undefined when it still can (sealed to this successor, or a failure a retry may get past).
 */
function cannotComplete(sealedTo: string | undefined, successorId: string, error: unknown): string | undefined {
  if (sealedTo === successorId) return undefined;
  if (sealedTo !== undefined) return `session was handed off to ${sealedTo}`;
  if (!isSuccessorRefused(error)) return undefined;
  return `successor ${successorId} cannot be started: ${error instanceof Error ? error.message : String(error)}`;
}
