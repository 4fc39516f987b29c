import type { Palimpsest, Session } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`Session.rewrite (${backend.name})`, () => {
    let runtime: Palimpsest;
    let other: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
      other = await backend.open(); // another "process"
    });
    afterAll(() => backend.dispose());

    async function twoExchanges(): Promise<Session> {
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append([...exchange(1), ...exchange(2)]);
      return session;
    }
    const ids = (s: Session) => s.view().messages.map((m) => m.id);

    it("retracts the newest message: out of the view, kept in the log, one expand away", async () => {
      const session = await twoExchanges();
      const [event] = await session.rewrite({ mode: "retract", targets: ["r2"] });
      expect(ids(session)).toEqual(["u1", "a1", "t1", "r1", "u2", "a2", "t2"]);
      if (event?.type !== "messages.superseded") throw new Error("expected a supersede");
      expect(event.data).toMatchObject({ mode: "retract", trigger: "manual", producer: { policy: "retract" } });
      expect((await session.expand(event.data.compactionId)).map((m) => m.message.id)).toEqual(["r2"]);
      expect((await session.history()).map((h) => h.mode)).toEqual(["retract"]);
      expect(viewProblems(session, await runtime.store.readStream(session.id))).toEqual([]);
    });

    it("withdraws a call still waiting for its result, so the next user message can follow", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      const [user, call] = exchange(1);
      await session.append([user, call] as never);
      const blocked = await rejection(session.append({ role: "user", content: "never mind" }));
      expect(blocked).toMatchObject({ details: { rule: "tool-calls-without-results" } });
      await session.rewrite({
        mode: "retract",
        targets: ["a1"],
        replacements: [{ id: "a1~stub", role: "assistant", content: "let me look (1)" }],
        append: [{ id: "u2", role: "user", content: "never mind" }],
      });
      expect(ids(session)).toEqual(["u1", "a1~stub", "u2"]);
      expect(session.state.pendingCalls.size).toBe(0);
      // A policy's compaction may not do the same: only a retraction withdraws calls in flight.
      const again = await runtime.startSession({ model: "gpt-4o" });
      await again.append([user, call] as never);
      const summary = await rejection(
        again.supersede({
          compactionId: "c-not-retract",
          targets: ["a1"],
          replacements: [],
          mode: "summary",
          basis: { viewVersion: 0 },
          producer: { policy: "test" },
          stats: { tokensBefore: 1, tokensAfter: 0 },
          trigger: "manual",
        }),
      );
      expect(summary).toMatchObject({ details: { rule: "supersede-splits-tool-pair" } });
    });

    it("replaces a suffix atomically: a batch the decider refuses writes nothing", async () => {
      const session = await twoExchanges();
      const lastSeq = session.state.lastSeq;
      const refused = await rejection(
        session.rewrite({
          mode: "retract",
          targets: ["r2"],
          append: [{ role: "tool", toolCallId: "c-unknown", content: "orphan" }],
        }),
      );
      expect(refused).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "tool-result-without-live-call" } });
      const fresh = await other.resume(session.id);
      expect(fresh.state.lastSeq).toBe(lastSeq);
      expect(ids(fresh)).toContain("r2");
      await session.rewrite({
        mode: "retract",
        targets: ["r2"],
        append: [{ id: "r2b", role: "assistant", content: "b" }],
      });
      expect(ids(session).slice(-2)).toEqual(["t2", "r2b"]);
      expect(session.state.lastSeq).toBe(lastSeq + 2);
    });

    it("refuses a retraction that would orphan a tool result, and a stale view version", async () => {
      const session = await twoExchanges();
      const orphan = await rejection(session.rewrite({ mode: "retract", targets: ["a1"] }));
      expect(orphan).toMatchObject({ details: { rule: "supersede-splits-tool-pair" } });
      const stale = await rejection(session.rewrite({ mode: "retract", targets: ["r2"], viewVersion: 7 }));
      expect(stale.code).toBe("CONCURRENCY_CONFLICT");
      expect(ids(session)).toHaveLength(8);
    });

    it("with expectedSeq, refuses to be decided again on a log another writer moved", async () => {
      const session = await twoExchanges();
      const seen = session.state.lastSeq;
      const elsewhere = await other.resume(session.id);
      await elsewhere.append({ id: "u3", role: "user", content: "meanwhile" });
      // `session` has not seen u3: its append fails on the stream version, and the rewrite is not re-decided.
      const moved = await rejection(session.rewrite({ mode: "retract", targets: ["r2"], expectedSeq: seen }));
      expect(moved).toMatchObject({
        code: "CONCURRENCY_CONFLICT",
        details: { subject: "stream-version", expected: seen },
      });
      await session.refresh();
      expect(ids(session).slice(-2)).toEqual(["r2", "u3"]);
      // Without it, the same rewrite is decided again on the moved log and lands.
      const again = await other.resume(session.id);
      await session.append({ id: "u4", role: "user", content: "and again" });
      await again.rewrite({ mode: "retract", targets: ["u3"] });
      expect(ids(again).slice(-2)).toEqual(["r2", "u4"]);
    });

    it("replays a keyed rewrite in another process, and refuses another body under the same key", async () => {
      const session = await twoExchanges();
      const request = {
        mode: "retract" as const,
        targets: ["r2"],
        append: [{ role: "assistant" as const, content: "second try" }],
        idempotencyKey: "op-1",
      };
      const first = await session.rewrite(request);
      const elsewhere = await other.resume(session.id);
      const again = await elsewhere.rewrite(request);
      expect(again.map((e) => e.seq)).toEqual(first.map((e) => e.seq));
      expect(ids(elsewhere).at(-1)).toBe(ids(session).at(-1));
      const lastSeq = elsewhere.state.lastSeq;
      const mismatch = await rejection(
        elsewhere.rewrite({ ...request, append: [{ role: "assistant", content: "other" }] }),
      );
      expect(mismatch.code).toBe("IDEMPOTENCY_MISMATCH");
      await elsewhere.refresh();
      expect(elsewhere.state.lastSeq).toBe(lastSeq);
    });

    it("records a provider's own compaction as an import that may absorb the last exchange", async () => {
      const session = await twoExchanges();
      await session.rewrite({
        mode: "import",
        targets: ids(session),
        replacements: [{ id: "compaction-1", role: "user", content: "[provider compaction]" }],
      });
      expect(ids(session)).toEqual(["compaction-1"]);
      expect(session.state.live[0]?.placedBy?.kind).toBe("summary");
      expect(session.state.lastCompaction).toMatchObject({ mode: "import", targets: 8 });
    });

    it("refuses a malformed request before anything is counted", async () => {
      const session = await twoExchanges();
      for (const [request, path] of [
        [{ mode: "delete", targets: ["r2"] }, "mode"],
        [{ mode: "retract", targets: [] }, "targets"],
        [{ mode: "retract", targets: ["r2"], extra: 1 }, "extra"],
        [{ mode: "retract", targets: ["r2"], append: "text" }, "append"],
        [{ mode: "retract", targets: ["r2"], expectedSeq: 1.5 }, "expectedSeq"],
      ] as const) {
        const error = await rejection(session.rewrite(request as never));
        expect(error).toMatchObject({ code: "VALIDATION", details: { path } });
      }
      expect(ids(session)).toHaveLength(8);
    });
  });
}
