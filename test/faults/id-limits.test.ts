/**
 * Every kind of id has one length limit (ID_LIMITS), the same on both engines: an id at it is stored and
 * read back as given (in random 1-, 3- and 4-byte characters, which PostgreSQL cannot compress below its
 * index entry limit), one a code unit over it is VALIDATION naming the field with nothing written, and the
 * ids the runtime derives from ids at their limits fit theirs.
 */

import { randomUUID } from "node:crypto";
import {
  type DomainEvent,
  ID_LIMITS,
  type MessagesSuperseded,
  type PalimpsestError,
  type StoredEvent,
} from "@palimpsest/core";
import type { Palimpsest, Session } from "@palimpsest/runtime";
import { importSessions } from "@palimpsest/runtime";
import { AuditReadModels } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { ALPHABETS, type IdAlphabet, idAtLimit, idOverLimit, utf8Bytes } from "../support/limit-ids.ts";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { databaseOf } from "../support/store-database.ts";

const started: DomainEvent = { type: "session.started", data: { encoding: "o200k_base" } };

/** A supersede of `targets` (retracted: it may take the last exchange) placing one summary with id `summaryId`. */
function retraction(session: Session, compactionId: string, targets: string[], summaryId: string): MessagesSuperseded {
  return {
    compactionId,
    targets,
    replacements: [
      { kind: "summary", message: { id: summaryId, role: "user", content: [{ type: "text", text: "s" }] }, tokens: 1 },
    ],
    mode: "retract",
    basis: { viewVersion: session.state.viewVersion },
    producer: { policy: "test" },
    stats: { tokensBefore: 10, tokensAfter: 1 },
    trigger: "manual",
  };
}

/** The ids of the messages a log appended or placed, in order. */
function messageIds(events: readonly StoredEvent[]): string[] {
  return events.flatMap((e) =>
    e.type === "message.appended"
      ? [e.data.message.id]
      : e.type === "messages.superseded"
        ? e.data.replacements.map((r) => r.message.id)
        : [],
  );
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`id limits (${backend.name})`, () => {
    let runtime: Palimpsest;
    let seed = 1;
    /** An id of `kind` at its limit, new each call. */
    const at = (kind: keyof typeof ID_LIMITS, alphabet: IdAlphabet) => idAtLimit(kind, alphabet, seed++);

    /** Everything the store holds, as text: compared before and after a refused call. */
    async function logSnapshot(): Promise<string> {
      const sessions = await runtime.store.listSessions();
      const streams = await Promise.all(sessions.map((s) => runtime.store.readStream(s.sessionId)));
      const handoffs = await runtime.handoffs.list();
      return JSON.stringify({ sessions, streams, handoffs });
    }

    /** Expects `call` to be VALIDATION at `path`, with the store unchanged. */
    async function refused(call: () => Promise<unknown>, path: string): Promise<PalimpsestError> {
      const before = await logSnapshot();
      const error = await rejection(call());
      expect(error.code, error.message).toBe("VALIDATION");
      expect((error.details as { path?: string }).path, error.message).toBe(path);
      expect(await logSnapshot()).toBe(before);
      return error;
    }

    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    for (const alphabet of ALPHABETS) {
      it(`stores every kind of id at its limit (${alphabet} characters) and reads it back as given`, async () => {
        const sessionId = at("session", alphabet);
        const [user, caller, result, summary] = [
          at("message", alphabet),
          at("message", alphabet),
          at("message", alphabet),
          at("message", alphabet),
        ];
        const callId = at("toolCall", alphabet);
        const turnId = at("turn", alphabet);
        const key = at("idempotencyKey", alphabet);
        const compactionId = at("compaction", alphabet);
        if (alphabet === "bmp") expect(utf8Bytes(sessionId) + utf8Bytes(`compaction:${compactionId}`)).toBe(2315);

        const session = await runtime.startSession({ sessionId, model: "gpt-4o" });
        await session.append(
          [
            { id: user, role: "user", content: "go" },
            { id: caller, role: "assistant", content: "", toolCalls: [{ id: callId, name: "f", arguments: "{}" }] },
            { id: result, role: "tool", toolCallId: callId, content: "done" },
          ],
          { turnId, idempotencyKey: key },
        );
        await session.completeTurn(turnId);
        await session.supersede(retraction(session, compactionId, [user, caller, result], summary));

        // A session linked to it, and the ids the store takes beside the events.
        const parent = { sessionId, relation: "subagent" as const };
        const child = await runtime.startSession({ parent });
        const direct = at("session", alphabet);
        const tenant = at("tenant", alphabet);
        const envelope = {
          idempotencyKey: at("idempotencyKey", alphabet),
          metadata: { causationId: at("causation", alphabet), correlationId: at("correlation", alphabet) },
        };
        const tenanted = await backend.open({ tenant });
        await tenanted.store.append(direct, [started], { expectedVersion: "no-stream", ...envelope });

        // Successors named at the limit: a fork, a hand-off, and a queued hand-off to a target at its limit.
        const forkId = at("session", alphabet);
        const fork = await runtime.fork(sessionId, { toSessionId: forkId });
        const handedId = at("session", alphabet);
        const successor = await runtime.handOff(await runtime.startSession({}), { toSessionId: handedId });
        const queuedId = at("session", alphabet);
        const target = at("handoffTarget", alphabet);
        const queuedSource = await runtime.startSession({});
        await runtime.handoffs.request(queuedSource, { successorSessionId: queuedId, target });
        const claim = await runtime.handoffs.claim({ claimant: "worker", leaseMs: 60_000, target });
        expect(claim?.successorSessionId).toBe(queuedId);
        if (claim === undefined) return;
        await runtime.handoffs.complete(claim);

        // Read back by another runtime (another "process"): every id as it was given.
        const other = await backend.open();
        const resumed = await other.resume(sessionId);
        expect(resumed.view()).toEqual(session.view());
        const log = await other.store.readStream(sessionId);
        expect(messageIds(log)).toEqual([user, caller, result, summary]);
        expect(log.map((e) => e.idempotencyKey ?? null)).toEqual([null, key, key, key, null, null]);
        expect(log.flatMap((e) => (e.type === "turn.completed" ? [e.data.turnId] : []))).toEqual([turnId]);
        expect(log.flatMap((e) => (e.type === "messages.superseded" ? [e.data.compactionId] : []))).toEqual([
          compactionId,
        ]);
        expect(await resumed.answeredCalls([callId])).toEqual(new Set([callId]));
        expect((await other.resume(child.id)).state.started?.parent).toEqual(parent);
        expect(await other.store.readStream(direct)).toEqual([]);
        const [first] = await (await backend.open({ tenant })).store.readStream(direct);
        expect({ tenantId: first?.tenantId, idempotencyKey: first?.idempotencyKey }).toEqual({
          tenantId: tenant,
          idempotencyKey: envelope.idempotencyKey,
        });
        expect({ causationId: first?.causationId, correlationId: first?.correlationId }).toEqual(envelope.metadata);
        expect((await other.resume(forkId)).view().messages).toEqual(fork.view().messages);
        expect((await other.resume(handedId)).state.started?.parent?.relation).toBe("handoff");
        expect(successor.id).toBe(handedId);
        expect((await other.resume(queuedSource.id)).state.handedOffTo).toBe(queuedId);
        const queued = (await other.handoffs.list()).find((h) => h.sourceSessionId === queuedSource.id);
        expect(queued?.target).toBe(target);

        // The audit read models project them too (their indexes hold the same ids).
        const audit = new AuditReadModels(other.store);
        await audit.catchUp();
        const [trail] = await audit.compaction(compactionId, sessionId);
        expect(trail?.compaction.compactionId).toBe(compactionId);
        expect(trail?.targets).toEqual([user, caller, result]);
        expect((await audit.message(summary, sessionId))[0]?.writtenBy?.compaction.compactionId).toBe(compactionId);
        expect((await audit.lineage(child.id)).ancestors.map((a) => a.sessionId)).toEqual([sessionId]);
        expect((await audit.lineage(queuedSource.id)).session.handedOffTo).toBe(queuedId);
      });
    }

    for (const alphabet of ["bmp", "astral"] as const) {
      it(`refuses every kind of id one code unit over its limit (${alphabet}) with VALIDATION naming the field`, async () => {
        const over = (kind: keyof typeof ID_LIMITS) => idOverLimit(kind, alphabet, seed++);
        const session = await runtime.startSession({ model: "gpt-4o" });
        await session.append(exchange(0), { turnId: "t0" });
        const other = await runtime.startSession({});
        const user = { role: "user" as const, content: "x" };

        // Session ids, and every id naming a new session.
        await refused(() => runtime.startSession({ sessionId: over("session") }), "sessionId");
        await refused(() => runtime.resumeOrStart(over("session")), "sessionId");
        await refused(
          () => runtime.startSession({ parent: { sessionId: over("session"), relation: "subagent" } }),
          "parent.sessionId",
        );
        await refused(
          () => runtime.store.append(over("session"), [started], { expectedVersion: "no-stream" }),
          "sessionId",
        );
        await refused(() => runtime.fork(session.id, { toSessionId: over("session") }), "toSessionId");
        await refused(() => runtime.handOff(other, { toSessionId: over("session") }), "toSessionId");
        await refused(
          () => runtime.handoffs.request(other, { successorSessionId: over("session") }),
          "successorSessionId",
        );
        await refused(() => runtime.handoffs.request(other, { target: over("handoffTarget") }), "target");

        // Idempotency keys: named as such even though a keyed append derives message ids from them.
        await refused(() => session.append(user, { idempotencyKey: over("idempotencyKey") }), "idempotencyKey");
        await refused(
          () => session.rewrite({ mode: "retract", targets: ["r0"], idempotencyKey: over("idempotencyKey") }),
          "idempotencyKey",
        );
        const keyed = { expectedVersion: "no-stream" as const, idempotencyKey: over("idempotencyKey") };
        await refused(() => runtime.store.append("fresh", [started], keyed), "idempotencyKey");

        // Messages, tool calls, turns and compactions.
        await refused(() => session.append({ ...user, id: over("message") }), "messages[0].id");
        await refused(
          () => session.rewrite({ mode: "retract", targets: ["r0"], append: [{ ...user, id: over("message") }] }),
          "append[0].id",
        );
        const call = { id: over("toolCall"), name: "f", arguments: "{}" };
        await refused(
          () => session.append([{ role: "assistant", content: "", toolCalls: [call] }]),
          "messages[0].toolCalls[0].id",
        );
        await refused(
          () => session.append({ role: "tool", toolCallId: over("toolCall"), content: "x" }),
          "messages[0].toolCallId",
        );
        await refused(() => session.append(user, { turnId: over("turn") }), "turnId");
        await refused(() => session.completeTurn(over("turn")), "turnId");
        await refused(() => session.supersede(retraction(session, over("compaction"), ["r0"], "s")), "compactionId");
        await refused(
          () => session.supersede(retraction(session, "k", ["r0"], over("message"))),
          "replacements[0].message.id",
        );

        // The store's own append: the envelope's ids and the events' (paths under events[i]).
        const fresh = { expectedVersion: "no-stream" as const };
        await refused(() => backend.open({ tenant: over("tenant") }), "tenant");
        await refused(
          () => runtime.store.append("fresh", [started], { ...fresh, metadata: { causationId: over("causation") } }),
          "metadata.causationId",
        );
        await refused(
          () =>
            runtime.store.append("fresh", [started], { ...fresh, metadata: { correlationId: over("correlation") } }),
          "metadata.correlationId",
        );
        const calling: DomainEvent = {
          type: "message.appended",
          data: {
            message: {
              id: "m",
              role: "assistant",
              content: [],
              toolCalls: [{ id: over("toolCall"), name: "f", arguments: "" }],
            },
            tokens: 1,
          },
        };
        await refused(
          () => runtime.store.append("fresh", [started, calling], fresh),
          "events[1].message.toolCalls[0].id",
        );
        const turn: DomainEvent = { type: "turn.completed", data: { turnId: over("turn") } };
        await refused(() => runtime.store.append("fresh", [started, turn], fresh), "events[1].turnId");
        expect(session.state.handedOffTo).toBeUndefined();
        expect(other.state.handedOffTo).toBeUndefined();
      });
    }

    it("derives ids that fit from ids at their limits: keyed messages, rewrites, forks, hand-offs, trims", async () => {
      const sessionId = at("session", "bmp");
      const key = at("idempotencyKey", "bmp");
      const session = await runtime.startSession({ sessionId, model: "gpt-4o" });
      // A keyed append names the messages it was given without ids `<key>#<i>`; a retry replays them.
      const batch = [
        { role: "user" as const, content: "one" },
        { role: "assistant" as const, content: "two" },
      ];
      const first = await session.append(batch, { idempotencyKey: key });
      expect(messageIds(first)).toEqual([`${key}#0`, `${key}#1`]);
      expect(await session.append(batch, { idempotencyKey: key })).toEqual(first);
      // A keyed rewrite derives its compaction and message ids from the key.
      const rewriteKey = at("idempotencyKey", "bmp");
      const rewritten = await session.rewrite({
        mode: "retract",
        targets: [`${key}#1`],
        append: [{ role: "assistant", content: "three" }],
        idempotencyKey: rewriteKey,
      });
      for (const id of messageIds(rewritten)) expect(id.length).toBeLessThanOrEqual(ID_LIMITS.message);
      // A fork and a hand-off of a session at the limit key their copies `fork:<id>:<seq>`, `handoff:<id>`.
      const fork = await runtime.fork(sessionId, {});
      expect((await runtime.store.readStream(fork.id))[0]?.idempotencyKey).toBe(
        `fork:${sessionId}:${session.state.lastSeq}`,
      );
      const successor = await runtime.handOff(session);
      expect((await runtime.store.readStream(successor.id))[0]?.idempotencyKey).toBe(`handoff:${sessionId}`);
      expect(successor.view().messages).toEqual(session.view().messages);

      // A tool output trimmed in its append: `trim:<message id>` is bounded to a compaction id's limit.
      const trimming = await backend.open({ compaction: { trimOnAppend: true, profile: "local" } });
      const trimmed = await trimming.startSession({ sessionId: at("session", "bmp"), model: "gpt-4o" });
      const [resultId, callId] = [at("message", "bmp"), at("toolCall", "bmp")];
      await trimmed.append([
        { role: "user", content: "read it" },
        { role: "assistant", content: "", toolCalls: [{ id: callId, name: "read", arguments: "{}" }] },
        { id: resultId, role: "tool", toolCallId: callId, content: "lorem ipsum ".repeat(20_000) },
      ]);
      const [trim] = await trimmed.history();
      expect(trim?.mode).toBe("trim");
      expect(trim?.compactionId.length).toBe(ID_LIMITS.compaction);
      expect(trim?.compactionId.startsWith(`trim:${resultId.slice(0, 400)}`)).toBe(true);
      expect((await (await backend.open()).resume(trimmed.id)).view()).toEqual(trimmed.view());
    });

    it("imports a transcript whose ids are at their limits: the compaction id it derives from a summary's id fits", async () => {
      const [user, summary] = [at("message", "bmp"), at("message", "bmp")];
      const text = (t: string) => [{ type: "text" as const, text: t }];
      const externalId = at("session", "bmp");
      const [imported] = await importSessions(runtime, [
        {
          externalId,
          format: "claude-code",
          items: [
            { kind: "message", message: { id: user, role: "user", content: text("hi") } },
            { kind: "message", message: { id: at("message", "bmp"), role: "assistant", content: text("hello") } },
            { kind: "compaction", summary: { id: summary, role: "user", content: text("said hi") }, trigger: "auto" },
          ],
          repairs: { syntheticResults: 0, orphanResults: 0, renamedCalls: 0, renamedMessages: 0, skippedEmpty: 0 },
        },
      ]);
      const [compaction] = await (await backend.open()).resume(imported?.sessionId ?? "").then((s) => s.history());
      expect(compaction?.compactionId.length).toBe(ID_LIMITS.compaction);
      expect(compaction?.compactionId.startsWith(summary.slice(0, 400))).toBe(true);
      expect(await runtime.resolveSession(externalId)).toBe(imported?.sessionId);
    });

    it("reads, exports and erases a session stored before the limits under a longer id; it takes no more writes", async () => {
      const sessionId = idOverLimit("session", "ascii", seed++);
      const db = databaseOf(runtime.store);
      const now = new Date().toISOString();
      const message = { id: "m", role: "user", content: [{ type: "text", text: "from before" }] };
      await db
        .insertInto("sessions")
        .values({
          session_id: sessionId,
          version: 2,
          view_version: 0,
          created_at: now,
          updated_at: now,
          tenant_id: "default",
        })
        .execute();
      const row = {
        session_id: sessionId,
        occurred_at: now,
        recorded_at: now,
        tenant_id: "default",
        schema_version: 1,
      };
      await db
        .insertInto("events")
        .values([
          { ...row, event_id: randomUUID(), seq: 1, type: "session.started", data: JSON.stringify(started.data) },
          {
            ...row,
            event_id: randomUUID(),
            seq: 2,
            type: "message.appended",
            data: JSON.stringify({ message, tokens: 3 }),
          },
        ])
        .execute();
      const legacy = await runtime.resume(sessionId);
      expect(legacy.view().messages.map((m) => m.id)).toEqual(["m"]);
      await refused(() => legacy.append({ role: "user", content: "more" }), "sessionId");
      await refused(() => runtime.fork(sessionId, {}), "parent.sessionId");
      expect((await runtime.erase(sessionId)).erased).toBe(true);
      expect((await runtime.store.readStream(sessionId)).map((e) => e.type)).toEqual([
        "session.started",
        "message.appended",
        "session.erased",
      ]);
    });

    it("names a session by an external id at the session limit; one over it is no name (the session still starts)", async () => {
      const name = at("session", "bmp");
      const named = await runtime.startSession({ source: { format: "test", externalId: name } });
      expect(await runtime.resolveSession(name)).toBe(named.id);
      const long = idOverLimit("session", "bmp", seed++);
      const unnamed = await runtime.startSession({ source: { format: "test", externalId: long } });
      expect(unnamed.state.started?.source?.externalId).toBe(long);
      expect((await rejection(runtime.resolveSession(long))).code).toBe("NOT_FOUND");
    });
  });
}
