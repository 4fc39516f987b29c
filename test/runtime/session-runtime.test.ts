import { compactRange, loadSession, type Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`session runtime (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open({ snapshotEvery: 10 });
    });
    afterAll(() => backend.dispose());

    it("appends, completes turns and resumes the same view in a fresh runtime", async () => {
      const session = await runtime.startSession({ model: "gpt-4o", contextWindow: 128_000 });
      for (let n = 0; n < 5; n++) {
        await session.append(exchange(n), { turnId: `turn${n}` });
        await session.completeTurn(`turn${n}`, { promptTokens: 100 * n, completionTokens: 7 });
      }
      expect(session.view().messages).toHaveLength(20);
      expect(session.view().tokens).toBe(session.state.live.reduce((s, e) => s + e.tokens, 0));
      expect(session.resumeState()).toMatchObject({ turns: 5, lastUsage: { promptTokens: 400, completionTokens: 7 } });
      const fresh = await backend.open();
      const resumed = await fresh.resume(session.id);
      expect(resumed.view()).toEqual(session.view());
      expect(resumed.resumeState()).toEqual(session.resumeState());
      expect(viewProblems(resumed, await fresh.store.readStream(session.id))).toEqual([]);
    });

    it("completes only a turn an append named, and only once, in this runtime and in a resumed one", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append(exchange(0), { turnId: "t0" });
      const unknown = await rejection(session.completeTurn("t-never"));
      expect(unknown).toMatchObject({
        code: "INVARIANT_VIOLATED",
        details: { rule: "unknown-turn", ids: ["t-never"] },
      });
      await session.append(exchange(1)); // no turn id: names no turn
      expect(await rejection(session.completeTurn("turn1"))).toMatchObject({ details: { rule: "unknown-turn" } });
      expect(await session.completeTurn("t0", { promptTokens: 10 })).toHaveLength(1);
      const seq = session.state.lastSeq;
      expect(await session.completeTurn("t0", { promptTokens: 99 })).toEqual([]);
      expect(session.state.lastSeq).toBe(seq);
      // 10+ events: the resumed handle starts from a snapshot, which must carry the turns too.
      for (let n = 2; n < 4; n++) await session.append(exchange(n), { turnId: "t0" });
      const resumed = await (await backend.open()).resume(session.id);
      expect(await resumed.completeTurn("t0")).toEqual([]);
      expect(await rejection(resumed.completeTurn("t-never"))).toMatchObject({ details: { rule: "unknown-turn" } });
      const log = await runtime.store.readStream(session.id);
      expect(log.filter((e) => e.type === "turn.completed").map((e) => e.data)).toEqual([
        { turnId: "t0", usage: { promptTokens: 10 } },
      ]);
      expect(log).toHaveLength(seq + 8); // the two appends of four messages, nothing else
      expect(resumed.state.lastSeq).toBe(log.length);
      expect(resumed.resumeState().lastUsage).toEqual({ promptTokens: 10 });
    });

    it("resumes from a snapshot plus newer events, and falls back to replay when the snapshot is missing, corrupt or ahead", async () => {
      const session = await runtime.startSession({ model: "claude-opus-4" });
      for (let n = 0; n < 8; n++) await session.append(exchange(n));
      await compactRange(session, { fromId: "a1", toId: "r5", summary: "summary of turns 1-5" });
      await session.append(exchange(8));
      const expected = session.view();
      await runtime.settled(); // snapshots are written in the background
      const withSnapshot = await loadSession(runtime.store, session.id);
      expect(withSnapshot.snapshotSeq).toBeGreaterThan(0);
      expect(withSnapshot.replayedEvents).toBeLessThan(session.state.lastSeq);
      const replay = await loadSession(runtime.store, session.id, false);
      expect(replay.replayedEvents).toBe(session.state.lastSeq);
      expect(withSnapshot.state).toEqual(replay.state);

      const snapshot = await runtime.store.loadSnapshot(session.id);
      if (snapshot === undefined) throw new Error("no snapshot was taken");
      const corruptions = [
        { ...snapshot, state: snapshot.state.replace("summary of turns", "SUMMARY OF TURNS") },
        { ...snapshot, state: snapshot.state.slice(0, 100) },
        { ...snapshot, format: 99 },
        { ...snapshot, seq: snapshot.seq + 1000 },
      ];
      for (const bad of corruptions) {
        await runtime.store.saveSnapshot(bad);
        const resumed = await (await backend.open()).resume(session.id);
        expect(resumed.view()).toEqual(expected);
      }
      await runtime.store.deleteSnapshot(session.id);
      expect((await runtime.resume(session.id)).view()).toEqual(expected);
    });

    it("snapshots right after a summary, with no id set, and keeps ids unique over the history it dropped", async () => {
      const writer = await backend.open({ snapshotEvery: 1_000 });
      const session = await writer.startSession({ model: "gpt-4o" });
      for (let n = 0; n < 4; n++) await session.append(exchange(n), { turnId: `turn${n}` });
      await session.completeTurn("turn0");
      const [compaction] = await compactRange(session, { fromId: "u0", toId: "r2", summary: "turns 0-2" });
      await writer.settled(); // the snapshot the compaction made due, written in the background
      const snapshot = await runtime.store.loadSnapshot(session.id);
      // Taken at the compaction (not 1,000 events later): it holds the small view, and no set of past ids.
      expect(snapshot?.seq).toBe(compaction?.seq);
      const saved = JSON.parse(snapshot?.state ?? "{}") as Record<string, unknown>;
      expect(Object.keys(saved).filter((k) => /messageSeq|answeredCalls|compactionIds|turnIds/.test(k))).toEqual([]);
      expect((saved.live as unknown[]).length).toBe(session.state.live.length);

      const resumed = await (await backend.open()).resume(session.id);
      expect(resumed.state.live.some((e) => e.message.id === "u0")).toBe(false); // absorbed by the summary
      const rule = async (write: Promise<unknown>) => (await rejection(write)).details.rule;
      expect(await rule(resumed.append({ id: "u0", role: "user", content: "again" }))).toBe("duplicate-message-id");
      expect(
        await rule(
          resumed.append({
            id: "a9",
            role: "assistant",
            content: "",
            toolCalls: [{ id: "c1", name: "grep", arguments: "{}" }],
          }),
        ),
      ).toBe("duplicate-tool-call-id");
      const replacement = {
        kind: "summary" as const,
        message: { id: "s-new", role: "user" as const, content: [{ type: "text" as const, text: "x" }] },
        tokens: 1,
      };
      const reused = {
        compactionId: compaction?.type === "messages.superseded" ? compaction.data.compactionId : "",
        targets: ["u3"],
        replacements: [replacement],
        mode: "summary" as const,
        basis: { viewVersion: resumed.state.viewVersion },
        producer: { policy: "test" },
        stats: { tokensBefore: 0, tokensAfter: 0 },
        trigger: "manual" as const,
      };
      expect(await rule(resumed.supersede(reused))).toBe("supersede-invalid");
      expect(await resumed.completeTurn("turn0")).toEqual([]); // completed before the snapshot: a no-op
      expect(await resumed.completeTurnIfNamed("never")).toEqual([]); // no append named it: passed over
      expect(await resumed.completeTurnIfNamed("turn0")).toEqual([]); // completed already
      expect(await resumed.completeTurnIfNamed("turn1")).toHaveLength(1);
      expect(await resumed.answeredCalls(["c0", "c3", "c9"])).toEqual(new Set(["c0", "c3"]));
      // Nothing refused was written.
      expect((await runtime.store.readStream(session.id)).length).toBe(resumed.state.lastSeq);
    });

    it("replays a log longer than one read page (2,000 events) to the same state", async () => {
      const session = await runtime.startSession();
      for (let batch = 0; batch < 5; batch++) {
        await session.append(
          Array.from({ length: 500 }, (_, i) => ({ role: "user" as const, content: `note ${batch}.${i}` })),
        );
      }
      const replay = await loadSession(runtime.store, session.id, false);
      expect(replay.replayedEvents).toBe(2_501);
      expect(replay.state).toEqual(session.state);
    });

    it("two racing compactions of overlapping ranges: one commits, the other's range is gone (NOT_FOUND naming it), never a conflict", async () => {
      const session = await runtime.startSession();
      for (let n = 0; n < 6; n++) await session.append(exchange(n));
      const a = await (await backend.open()).resume(session.id);
      const b = await (await backend.open()).resume(session.id);
      const results = await Promise.allSettled([
        compactRange(a, { fromId: "a0", toId: "r2", summary: "A's summary" }),
        compactRange(b, { fromId: "a1", toId: "r3", summary: "B's summary" }),
      ]);
      const fulfilled = results.filter((r) => r.status === "fulfilled");
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect(rejected[0]?.reason).toMatchObject({ code: "NOT_FOUND", details: { kind: "message" } });
      const after = await (await backend.open()).resume(session.id);
      expect(after.state.viewVersion).toBe(1);
      expect(viewProblems(after, await runtime.store.readStream(session.id))).toEqual([]);
    });

    it("two racing compactions of disjoint ranges through stale handles both commit: the later decides again on the moved view", async () => {
      const session = await runtime.startSession();
      for (let n = 0; n < 6; n++) await session.append(exchange(n));
      const a = await (await backend.open()).resume(session.id);
      const b = await (await backend.open()).resume(session.id);
      await compactRange(a, { fromId: "a0", toId: "r1", summary: "A's summary" });
      // b has not seen A's compaction: its basis is stale, and the runtime plans it again on the moved view.
      expect(b.state.viewVersion).toBe(0);
      await compactRange(b, { fromId: "a2", toId: "r3", summary: "B's summary" });
      const after = await (await backend.open()).resume(session.id);
      expect(after.state.viewVersion).toBe(2);
      expect((await after.history()).map((c) => c.basis.viewVersion)).toEqual([0, 1]);
      expect(viewProblems(after, await runtime.store.readStream(session.id))).toEqual([]);
    });

    it("retries an append whose handle was stale, so concurrent writers both land", async () => {
      const session = await runtime.startSession();
      const other = await (await backend.open()).resume(session.id);
      await session.append(exchange(0));
      await other.append({ id: "late", role: "user", content: "written through a stale handle" });
      const view = (await runtime.resume(session.id)).view();
      expect(view.messages.map((m) => m.id)).toEqual(["u0", "a0", "t0", "r0", "late"]);
    });

    it("hands a session off with lineage both ways; the old one takes no more writes", async () => {
      const session = await runtime.startSession({ model: "gpt-4.1", title: "before rotation" });
      await session.append(exchange(0));
      const successor = await runtime.handOff(session, { reason: "rotation" });
      expect(successor.view().messages).toEqual(session.view().messages);
      expect(successor.resumeState().lineage.parent).toEqual({ sessionId: session.id, relation: "handoff" });
      const old = await runtime.resume(session.id);
      expect(old.resumeState().lineage.handedOffTo).toBe(successor.id);
      const error = await rejection(old.append({ role: "user", content: "too late" }));
      expect(error).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "session-handed-off" } });
      expect(old.state.lastSeq).toBe((await runtime.store.getSession(session.id))?.version);
    });

    it("validates a message once: the events returned are frozen, the caller's objects never are", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      const input = {
        id: "a-frozen",
        role: "assistant" as const,
        content: [{ type: "text" as const, text: "reading" }],
        toolCalls: [{ id: "c-frozen", name: "read", arguments: "{}" }],
        reasoning: [{ type: "thinking", thinking: "first the file", signature: "sig" }],
        metadata: { provider: { ids: ["r1"], usage: { input: 10 } } },
      };
      const { content, toolCalls, reasoning, metadata } = input;
      const callers: object[] = [input, content, ...content, toolCalls, ...toolCalls, reasoning, ...reasoning];
      callers.push(metadata, metadata.provider, metadata.provider.ids, metadata.provider.usage);
      const [event] = await session.append([input, { role: "tool", toolCallId: "c-frozen", content: "text" }]);
      for (const object of callers) expect(Object.isFrozen(object)).toBe(false);
      if (event?.type !== "message.appended") throw new Error("expected a message.appended event");
      expect(Object.isFrozen(event.data)).toBe(true);
      expect(Object.isFrozen(event.data.message.metadata?.provider)).toBe(true);
      expect(event.data.message).toEqual(input);
      expect(session.view().messages.find((m) => m.id === "a-frozen")).toBe(event.data.message);
      // the caller's objects stay theirs: changing them changes nothing stored
      input.metadata.provider.ids.push("r2");
      const [stored] = await runtime.store.readStream(session.id, { fromSeq: event.seq, toSeq: event.seq });
      expect(stored?.data).toEqual(event.data);
      expect(Object.isFrozen(stored?.data)).toBe(false);
    });

    it("rejects bad input with stable codes and loses nothing already stored", async () => {
      const session = await runtime.startSession();
      await session.append(exchange(0));
      const before = await runtime.store.readStream(session.id);
      const orphan = await rejection(session.append({ role: "tool", toolCallId: "nope", content: "x" }));
      expect(orphan).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "tool-result-without-live-call" } });
      const role = await rejection(session.append({ role: "robot" as never, content: "beep" }));
      expect(role.code).toBe("VALIDATION");
      const empty = await rejection(session.append({ role: "user", content: "" }));
      expect(empty).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "empty-message" } });
      const unknown = await rejection(runtime.resume("no-such-session"));
      expect(unknown).toMatchObject({ code: "NOT_FOUND", details: { kind: "session" } });
      expect(await runtime.store.readStream(session.id)).toEqual(before);
    });

    it("stores a 10 MB tool output and odd Unicode byte for byte, counted once at append", async () => {
      const session = await runtime.startSession();
      const huge = `${"0123456789abcdef".repeat(655_360)}\u0000 e\u0301 \ud83d 👩‍👩‍👧 ‮rtl`;
      await session.append([
        { id: "u", role: "user", content: "dump it" },
        { id: "a", role: "assistant", content: "", toolCalls: [{ id: "c", name: "cat", arguments: "{}" }] },
        { id: "t", role: "tool", toolCallId: "c", content: huge },
      ]);
      const resumed = await (await backend.open()).resume(session.id);
      const tool = resumed.view().messages.find((m) => m.id === "t");
      expect(tool?.content).toEqual([{ type: "text", text: huge }]);
      expect(resumed.state.live.find((e) => e.message.id === "t")?.tokens).toBeGreaterThan(1_000_000);
    });

    it("makes an append with an idempotency key safe to retry after a lost acknowledgement", async () => {
      const session = await runtime.startSession();
      const lostAck = await (await backend.open()).resume(session.id);
      const other = await (await backend.open()).resume(session.id);
      const batch = exchange(0);
      const first = await session.append(batch, { idempotencyKey: "k1" });
      const retried = await lostAck.append(batch, { idempotencyKey: "k1" });
      expect(retried.map((e) => e.eventId)).toEqual(first.map((e) => e.eventId));
      expect(lostAck.view()).toEqual(session.view());
      expect((await runtime.store.readStream(session.id)).length).toBe(1 + first.length);
      const noIds = [
        { role: "user" as const, content: "no id given" },
        { role: "assistant" as const, content: "still identical on retry" },
      ];
      const keyed = await session.append(noIds, { idempotencyKey: "k2" });
      const staleAgain = await (await backend.open()).resume(session.id);
      await staleAgain.refresh();
      const retriedKeyed = await lostAck.append(noIds, { idempotencyKey: "k2" });
      expect(retriedKeyed.map((e) => e.eventId)).toEqual(keyed.map((e) => e.eventId));
      const mismatch = await rejection(other.append(exchange(1), { idempotencyKey: "k1" }));
      expect(mismatch.code).toBe("IDEMPOTENCY_MISMATCH");
      expect((await runtime.store.readStream(session.id)).length).toBe(1 + first.length + keyed.length);
    });
  });
}
