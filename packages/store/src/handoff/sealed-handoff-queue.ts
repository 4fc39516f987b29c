import {
  type ClaimOptions,
  type Clock,
  type Finish,
  type Handoff,
  type HandoffClaim,
  type HandoffClaimRef,
  type HandoffQueuePort,
  type HandoffRecord,
  type HandoffStatus,
  InvariantViolation,
  type NewHandoff,
} from "@palimpsest/core";
import { type ContentCipher, isSealedText, openText, sealText } from "../encryption/content-cipher.ts";

/** What a sealed text is bound to (the AAD): a reason cannot be opened as a failure's text, nor the reverse. */
const REASON = "handoff reason";
const FAILURE = "handoff failure";

/**
 * The hand-off queue of a store opened with a keyring: a request's reason and a failure's text are sealed
 * under the source session's key, so an erasure, which destroys that key, leaves them unreadable in every
 * copy, and they are opened on every read. Texts kept before the store was encrypted, and the queue's own
 * (an erasure's "session erased"), read as they are; a sealed text whose key is gone (an erasure cut short
 * between destroying the key and clearing the texts) reads as absent.
 */
export class SealedHandoffQueue implements HandoffQueuePort {
  readonly #inner: HandoffQueuePort;
  readonly #cipher: ContentCipher;

  /** `inner`'s queue, its texts sealed and opened with `cipher`. */
  constructor(inner: HandoffQueuePort, cipher: ContentCipher) {
    this.#inner = inner;
    this.#cipher = cipher;
  }

  withClock(clock: Clock): HandoffQueuePort {
    return new SealedHandoffQueue(this.#inner.withClock(clock), this.#cipher);
  }

  async insert(input: NewHandoff): Promise<Handoff> {
    if (input.reason === undefined) return this.#open(await this.#inner.insert(input));
    const keys = await this.#cipher.keysToWrite(input.sourceSessionId);
    try {
      return this.#open(await this.#inner.insert({ ...input, reason: sealText(keys, input.reason, REASON) }));
    } catch (error) {
      // Sealing made the erased source a key again (the keyring had none): nothing is sealed under it.
      if (error instanceof InvariantViolation && error.details.rule === "session-erased")
        await this.#cipher.destroy(input.sourceSessionId);
      throw error;
    }
  }

  async claim(options: ClaimOptions): Promise<HandoffClaim | undefined> {
    const claim = await this.#inner.claim(options);
    return claim === undefined ? undefined : this.#open(claim);
  }

  async renew(claim: HandoffClaimRef, leaseMs: number): Promise<HandoffClaim> {
    return this.#open(await this.#inner.renew(claim, leaseMs));
  }

  async check(claim: HandoffClaimRef): Promise<HandoffClaim> {
    return this.#open(await this.#inner.check(claim));
  }

  async startCompletion(claim: HandoffClaimRef): Promise<Handoff> {
    return this.#open(await this.#inner.startCompletion(claim));
  }

  async finish(claim: HandoffClaimRef, end: Finish, evenIfCompleting?: boolean): Promise<Handoff> {
    const sealed =
      end.status === "failed"
        ? { ...end, failureReason: await this.#sealFailure(claim.handoffId, end.failureReason) }
        : end;
    return this.#open(await this.#inner.finish(claim, sealed, evenIfCompleting));
  }

  async markCompleted(handoffId: string): Promise<Handoff> {
    return this.#open(await this.#inner.markCompleted(handoffId));
  }

  async cancel(handoffId: string, failureReason: string): Promise<Handoff | undefined> {
    const cancelled = await this.#inner.cancel(handoffId, await this.#sealFailure(handoffId, failureReason));
    return cancelled === undefined ? undefined : this.#open(cancelled);
  }

  async read(handoffId: string): Promise<HandoffRecord> {
    return this.#open(await this.#inner.read(handoffId));
  }

  async list(filter?: { status?: HandoffStatus; sourceSessionId?: string; open?: boolean }): Promise<Handoff[]> {
    return Promise.all((await this.#inner.list(filter)).map((handoff) => this.#open(handoff)));
  }

  /** A failure's text for hand-off `handoffId`, sealed under its source session's key. */
  async #sealFailure(handoffId: string, text: string): Promise<string> {
    const { sourceSessionId } = await this.#inner.read(handoffId);
    return sealText(await this.#cipher.keysToWrite(sourceSessionId), text, FAILURE);
  }

  /** `handoff` with its sealed texts opened (dropped when their key is gone). */
  async #open<T extends Handoff>(handoff: T): Promise<T> {
    const { reason, failureReason } = handoff;
    const sealedReason = reason !== undefined && isSealedText(reason);
    const sealedFailure = failureReason !== undefined && isSealedText(failureReason);
    if (!sealedReason && !sealedFailure) return handoff;
    const keys = await this.#cipher.keysIfKept(handoff.sourceSessionId);
    const opened: T = { ...handoff };
    if (sealedReason) {
      if (keys === undefined) delete opened.reason;
      else opened.reason = openText(keys, reason, REASON);
    }
    if (sealedFailure) {
      if (keys === undefined) delete opened.failureReason;
      else opened.failureReason = openText(keys, failureReason, FAILURE);
    }
    return opened;
  }
}
