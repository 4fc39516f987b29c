/**
 * The hand-off queue on PostgreSQL through a TCP proxy that cuts the connection under one of its
 * statements: after the server committed it (its answer lost), before the server got it, or on every
 * attempt. The queue makes its reads again, and each write again after looking for what a lost attempt
 * stored (a request's row by its id, a claim by its token; the other transitions are fenced updates that
 * repeat as the same change or end), so the caller gets the result, the queue holds it once, and only a
 * write every attempt of which was cut reaches the caller: a retryable STORAGE error, nothing written.
 */

import { randomUUID } from "node:crypto";
import { type Handoff, type HandoffClaim, isPalimpsestError, StorageError } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { type ProxiedRuntimes, proxiedRuntimes } from "../support/proxied-runtimes.ts";
import type { TcpProxy } from "../support/tcp-proxy.ts";

const server = postgresServer();

/** Text of each of the queue's statements (handoff-queue.ts), as kysely sends it. */
const REQUEST = 'insert into "handoffs"';
const CLAIM = '"claim_token" = $3, "attempts" = "attempts" +';
const RENEW = 'update "handoffs" set "lease_expires_at_ms"';
const CHECK = 'update "handoffs" set "updated_at_ms"';
const START = 'set "completion_started_at_ms" = coalesce';
const MARK_COMPLETED = '"completion_started_at_ms" is not null';
const FINISH = '"claim_token" = $6';
const CANCEL = "where \"handoff_id\" = $4 and status in ('pending', 'claimed')";
const READ = 'select * from "handoffs" where "handoff_id" = $1';
const LIST = 'select * from "handoffs" where "handoffs"."tenant_id" = $1 order by';

/** What one case is given: a session to hand off, a target only its hand-off has, and its successor's id. */
interface Fixture {
  sourceId: string;
  target: string;
  successorId: string;
}

/** One queue operation made through the proxy, and what the queue must hold after it. */
interface Operation {
  name: string;
  /** The statement the proxy cuts. */
  marker: string;
  /** The `operation` of the StorageError when every attempt was cut. */
  operation: string;
  /** Brings the queue (without the proxy) to where the operation starts; returns the call to make through the proxy. */
  prepare(f: Fixture): Promise<() => Promise<unknown>>;
  /** The result and the queue after the call succeeded: its change, made once. */
  landed(f: Fixture, result: unknown): Promise<void>;
  /** The queue after every attempt was cut: nothing of the call written. */
  untouched(f: Fixture): Promise<void>;
}

describe.skipIf("skip" in server)("PostgreSQL faults: the connection cut under the hand-off queue", () => {
  let runtimes: ProxiedRuntimes;
  let proxy: TcpProxy;
  let direct: Palimpsest;
  let proxied: Palimpsest;
  beforeAll(async () => {
    if ("skip" in server) return;
    runtimes = await proxiedRuntimes(server.url, "pglosthandoff");
    ({ proxy, direct, proxied } = runtimes);
  });
  afterAll(() => runtimes?.close());

  /** A fresh session holding one exchange (written without the proxy), a target and a successor id of its own. */
  async function fixture(): Promise<Fixture> {
    const session = await direct.startSession({});
    await session.append(exchange(0));
    return { sourceId: session.id, target: `t-${randomUUID()}`, successorId: `next-${randomUUID()}` };
  }

  const queue = () => direct.store.handoffQueue;
  /** The source's hand-offs, as the queue holds them. */
  const handoffsOf = (f: Fixture) => queue().list({ sourceSessionId: f.sourceId });
  /** The source's one hand-off (fails unless there is exactly one). */
  async function onlyHandoff(f: Fixture): Promise<Handoff> {
    const all = await handoffsOf(f);
    expect(all).toHaveLength(1);
    return all[0] as Handoff;
  }
  /** Requests the source's hand-off and claims it, without the proxy. */
  async function claimed(f: Fixture): Promise<HandoffClaim> {
    await direct.handoffs.request(f.sourceId, { target: f.target, successorSessionId: f.successorId });
    const claim = await direct.handoffs.claim({ claimant: "prepared", leaseMs: 60_000, target: f.target });
    if (claim === undefined) throw new Error("nothing to claim");
    return claim;
  }
  /** The source's seals (session.handed-off events) in its log. */
  const sealsOf = async (f: Fixture) =>
    (await direct.store.readStream(f.sourceId)).filter((e) => e.type === "session.handed-off");
  const successorExists = async (f: Fixture) => (await direct.store.getSession(f.successorId)) !== undefined;

  /** Per operation: the claim prepare() took (for landed and untouched to check against). */
  const claims = new Map<string, HandoffClaim>();
  const claimOf = (f: Fixture) => {
    const claim = claims.get(f.sourceId);
    if (claim === undefined) throw new Error("no claim prepared");
    return claim;
  };

  const operations: Operation[] = [
    {
      name: "a request",
      marker: REQUEST,
      operation: "requestHandoff",
      prepare: async (f) => () =>
        proxied.handoffs.request(f.sourceId, { target: f.target, successorSessionId: f.successorId }),
      async landed(f, result) {
        const only = await onlyHandoff(f);
        expect(only).toMatchObject({ status: "pending", successorSessionId: f.successorId, attempts: 0 });
        expect(result).toEqual(only);
      },
      untouched: async (f) => expect(await handoffsOf(f)).toEqual([]),
    },
    {
      name: "a claim",
      marker: CLAIM,
      operation: "claimHandoff",
      async prepare(f) {
        await direct.handoffs.request(f.sourceId, { target: f.target, successorSessionId: f.successorId });
        return () => proxied.handoffs.claim({ claimant: "me", leaseMs: 60_000, target: f.target });
      },
      async landed(f, result) {
        const only = await onlyHandoff(f);
        expect(only).toMatchObject({ status: "claimed", claimedBy: "me", attempts: 1 });
        const claim = result as HandoffClaim;
        expect(claim).toMatchObject({ handoffId: only.handoffId, claimedBy: "me", attempts: 1 });
        expect((await queue().read(only.handoffId)).claimToken).toBe(claim.token);
        // Held by this claim, not by a lost one: it is nobody else's to take, and it completes under it.
        expect(await direct.handoffs.claim({ claimant: "other", leaseMs: 60_000, target: f.target })).toBeUndefined();
        expect((await proxied.handoffs.complete(claim)).id).toBe(f.successorId);
      },
      untouched: async (f) => expect(await onlyHandoff(f)).toMatchObject({ status: "pending", attempts: 0 }),
    },
    {
      name: "a renewal",
      marker: RENEW,
      operation: "renewHandoff",
      async prepare(f) {
        const claim = await claimed(f);
        claims.set(f.sourceId, claim);
        return () => proxied.handoffs.renew(claim, 600_000);
      },
      async landed(f, result) {
        const before = claimOf(f);
        const renewed = result as HandoffClaim;
        expect(renewed).toMatchObject({ handoffId: before.handoffId, token: before.token, attempts: 1 });
        expect(Date.parse(renewed.leaseExpiresAt)).toBeGreaterThan(Date.parse(before.leaseExpiresAt) + 500_000);
        expect(await onlyHandoff(f)).toMatchObject({ status: "claimed", leaseExpiresAt: renewed.leaseExpiresAt });
      },
      untouched: async (f) =>
        expect(await onlyHandoff(f)).toMatchObject({ status: "claimed", leaseExpiresAt: claimOf(f).leaseExpiresAt }),
    },
    {
      name: "a claim's check",
      marker: CHECK,
      operation: "checkHandoffClaim",
      async prepare(f) {
        const claim = await claimed(f);
        claims.set(f.sourceId, claim);
        return () => proxied.store.handoffQueue.check(claim);
      },
      async landed(f, result) {
        const claim = claimOf(f);
        expect(result).toMatchObject({ handoffId: claim.handoffId, token: claim.token, status: "claimed" });
        expect(await onlyHandoff(f)).toMatchObject({ status: "claimed", attempts: 1 });
      },
      untouched: async (f) =>
        expect(await onlyHandoff(f)).toMatchObject({ status: "claimed", updatedAt: claimOf(f).updatedAt }),
    },
    {
      name: "a completion's start",
      marker: START,
      operation: "startHandoffCompletion",
      async prepare(f) {
        const claim = await claimed(f);
        return () => proxied.handoffs.complete(claim);
      },
      async landed(f, result) {
        expect((result as { id: string }).id).toBe(f.successorId);
        expect(await onlyHandoff(f)).toMatchObject({ status: "completed", attempts: 1 });
        expect(await sealsOf(f)).toHaveLength(1);
        expect(await successorExists(f)).toBe(true);
      },
      async untouched(f) {
        const only = await onlyHandoff(f);
        expect(only).toMatchObject({ status: "claimed" });
        expect(only.completionStartedAt).toBeUndefined();
        expect(await sealsOf(f)).toEqual([]);
        expect(await successorExists(f)).toBe(false);
      },
    },
    {
      name: "a completion's mark",
      marker: MARK_COMPLETED,
      operation: "completeHandoff",
      async prepare(f) {
        const claim = await claimed(f);
        claims.set(f.sourceId, claim);
        return () => proxied.handoffs.complete(claim);
      },
      async landed(f, result) {
        expect((result as { id: string }).id).toBe(f.successorId);
        expect(await onlyHandoff(f)).toMatchObject({ status: "completed", attempts: 1 });
        expect(await sealsOf(f)).toHaveLength(1);
      },
      async untouched(f) {
        // The steps before it landed (a retry of complete finishes the hand-off): the mark alone is missing.
        expect(await onlyHandoff(f)).toMatchObject({ status: "claimed" });
        expect(await sealsOf(f)).toHaveLength(1);
        expect((await direct.handoffs.complete(claimOf(f))).id).toBe(f.successorId);
        expect(await onlyHandoff(f)).toMatchObject({ status: "completed" });
        expect(await sealsOf(f)).toHaveLength(1);
      },
    },
    {
      name: "a failure",
      marker: FINISH,
      operation: "finishHandoff",
      async prepare(f) {
        const claim = await claimed(f);
        return () => proxied.handoffs.fail(claim, "gave up");
      },
      async landed(f, result) {
        const only = await onlyHandoff(f);
        expect(only).toMatchObject({ status: "failed", failureReason: "gave up", attempts: 1 });
        expect(result).toEqual(only);
        expect(await sealsOf(f)).toEqual([]);
      },
      untouched: async (f) => expect(await onlyHandoff(f)).toMatchObject({ status: "claimed" }),
    },
    {
      name: "a cancellation",
      marker: CANCEL,
      operation: "cancelHandoff",
      async prepare(f) {
        const { handoffId } = await direct.handoffs.request(f.sourceId, { target: f.target });
        return () => proxied.store.handoffQueue.cancel(handoffId, "sealed elsewhere");
      },
      async landed(f, result) {
        const only = await onlyHandoff(f);
        expect(only).toMatchObject({ status: "failed", failureReason: "sealed elsewhere" });
        expect(result).toEqual(only);
      },
      untouched: async (f) => expect(await onlyHandoff(f)).toMatchObject({ status: "pending" }),
    },
  ];

  for (const op of operations) {
    it(`${op.name} whose answer is lost after it committed: the caller gets it, the queue holds it once`, async () => {
      const f = await fixture();
      const call = await op.prepare(f);
      const lost = proxy.lost;
      proxy.loseNextAnswer(op.marker);
      const result = await call();
      expect(proxy.lost).toBe(lost + 1);
      await op.landed(f, result);
    });

    it(`${op.name} whose request is lost before the server got it is made again, once`, async () => {
      const f = await fixture();
      const call = await op.prepare(f);
      const cut = proxy.lostRequests;
      proxy.loseNextRequests(op.marker);
      const result = await call();
      expect(proxy.lostRequests).toBe(cut + 1);
      await op.landed(f, result);
    });

    it(`${op.name} cut on every attempt: a retryable STORAGE error after three, nothing written`, async () => {
      const f = await fixture();
      const call = await op.prepare(f);
      const cut = proxy.lostRequests;
      proxy.loseNextRequests(op.marker, 3);
      const failure = await call().catch((error: unknown) => error);
      proxy.loseNextRequests(op.marker, 0); // (left armed only when fewer attempts were made)
      expect(proxy.lostRequests).toBe(cut + 3);
      expect(failure).toBeInstanceOf(StorageError);
      expect((failure as StorageError).details).toMatchObject({ operation: op.operation, retryable: true });
      await op.untouched(f);
    });
  }

  it("a request whose answer is lost and then the source's other request: handoff-open names the first, once", async () => {
    const f = await fixture();
    proxy.loseNextAnswer(REQUEST);
    const first = await proxied.handoffs.request(f.sourceId, { target: f.target, successorSessionId: f.successorId });
    const again = await proxied.handoffs.request(f.sourceId, { target: f.target }).catch((error: unknown) => error);
    expect(isPalimpsestError(again, "INVARIANT_VIOLATED")).toBe(true);
    expect((again as { details: unknown }).details).toMatchObject({ rule: "handoff-open", ids: [first.handoffId] });
    expect((await handoffsOf(f)).map((h) => h.handoffId)).toEqual([first.handoffId]);
  });

  it("a completion's start whose answer is lost, its lease run out before the retry: the retry finds it begun, the completion goes on", async () => {
    const f = await fixture();
    let now = Date.UTC(2030, 0, 1);
    let expireAfterNextCall = false;
    const clocked = new Palimpsest({
      store: proxied.store,
      counterFor: createTokenCounter,
      handoffClock: () => {
        const at = now;
        if (expireAfterNextCall) [expireAfterNextCall, now] = [false, now + 5_000];
        return at;
      },
    });
    await clocked.handoffs.request(f.sourceId, { target: f.target, successorSessionId: f.successorId });
    const claim = await clocked.handoffs.claim({ claimant: "me", leaseMs: 1_000, target: f.target });
    if (claim === undefined) throw new Error("nothing to claim");
    proxy.loseNextAnswer(START);
    expireAfterNextCall = true; // the start's first attempt is the last within the lease
    expect((await clocked.handoffs.complete(claim)).id).toBe(f.successorId);
    expect(await onlyHandoff(f)).toMatchObject({ status: "completed", attempts: 1 });
    expect(await sealsOf(f)).toHaveLength(1);
  });

  for (const [name, marker] of [
    ["one hand-off (get)", READ],
    ["the queue (list)", LIST],
  ] as const) {
    it(`a read of ${name} whose answer is lost, or whose request is: read again, the caller gets the answer`, async () => {
      const f = await fixture();
      const { handoffId } = await direct.handoffs.request(f.sourceId, { target: f.target });
      const read = () => (marker === READ ? proxied.handoffs.get(handoffId) : proxied.handoffs.list());
      const expected = marker === READ ? await direct.handoffs.get(handoffId) : await direct.handoffs.list();
      const { lost, lostRequests } = proxy;
      proxy.loseNextAnswer(marker);
      expect(await read()).toEqual(expected);
      proxy.loseNextRequests(marker);
      expect(await read()).toEqual(expected);
      expect([proxy.lost - lost, proxy.lostRequests - lostRequests]).toEqual([1, 1]);
    });
  }
});
