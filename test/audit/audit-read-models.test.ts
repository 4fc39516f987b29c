import { foldEvents, initialState, type StoredEvent, type Summarizer, SummarizerError } from "@palimpsest/core";
import { activeView, compactionHistory } from "@palimpsest/projections";
import { compact, type Palimpsest, type Session } from "@palimpsest/runtime";
import { AuditReadModels, type OpenedEventStore } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { turn, WINDOW } from "../precompact/precompact-fixtures.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { databaseOf } from "../support/store-database.ts";

/** Appends `count` completed turns of about 1,500 tokens each, numbered from `from`. */
async function grow(session: Session, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) await turn(session, n);
}

const failing: Summarizer = {
  model: "failing-model",
  promptVersion: "v9",
  summarize: async () => {
    throw new SummarizerError("rate-limited", "test", "simulated 429");
  },
};

function superseded(events: readonly StoredEvent[]) {
  return events.filter((e) => e.type === "messages.superseded");
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`audit read models (${backend.name})`, () => {
    let runtime: Palimpsest;
    let other: Palimpsest;
    let audit: AuditReadModels;
    let source: Session;
    let successor: Session;
    let subagent: Session;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
      other = await backend.open(); // a second "process" with its own connections
      audit = new AuditReadModels(runtime.store);

      source = await runtime.startSession({ contextWindow: WINDOW, profile: "local", model: "gpt-4o" });
      await grow(source, 0, 40);
      expect((await compact(source, { policy: "summary" })).status).toBe("compacted");
      expect((await compact(source, { policy: "summary", summarizer: failing, force: true })).status).toBe("failed");
      await grow(source, 40, 30);
      expect((await compact(source, { policy: "prune-first" })).status).toBe("compacted");
      successor = await runtime.handOff(source, { reason: "rotation" });
      subagent = await runtime.startSession({ parent: { sessionId: successor.id, relation: "subagent" } });
    });
    afterAll(() => backend.dispose());

    it("lists every compaction of the log with its producer, trigger and tokens reclaimed", async () => {
      const log = await runtime.store.readStream(source.id);
      const history = compactionHistory(log);
      expect(history.length).toBeGreaterThanOrEqual(2);
      const listed = await audit.compactions({ sessionId: source.id });
      expect(listed.map((c) => c.compactionId)).toEqual(history.map((h) => h.compactionId));
      for (const [i, c] of listed.entries()) {
        const h = history[i];
        if (h === undefined) throw new Error("unreachable");
        expect(c).toMatchObject({
          seq: h.seq,
          mode: h.mode,
          trigger: h.trigger,
          policy: h.producer.policy,
          summarizerModel: h.producer.summarizerModel ?? null,
          promptVersion: h.producer.promptVersion ?? null,
          targets: h.targets.length,
          tokensReclaimed: h.stats.tokensBefore - h.stats.tokensAfter,
        });
        expect(Date.parse(c.occurredAt)).toBe(Date.parse(h.occurredAt));
      }
    });

    it("filters by mode, policy, summarizer model, prompt version, trigger and time range", async () => {
      const all = await audit.compactions({ sessionId: source.id });
      const first = all[0];
      if (first === undefined) throw new Error("no compactions");
      for (const filter of [
        { mode: first.mode },
        { policy: first.policy },
        { summarizerModel: first.summarizerModel ?? "" },
        { promptVersion: first.promptVersion ?? "" },
        { trigger: first.trigger },
      ]) {
        const expected = all.filter((c) =>
          Object.entries(filter).every(([k, v]) => (c as unknown as Record<string, unknown>)[k] === v),
        );
        expect(await audit.compactions({ sessionId: source.id, ...filter })).toEqual(expected);
      }
      expect(await audit.compactions({ sessionId: source.id, mode: "no-such-mode" })).toEqual([]);
      expect(await audit.compactions({ sessionId: source.id, since: new Date(Date.now() + 60_000) })).toEqual([]);
      expect(await audit.compactions({ sessionId: source.id, until: "2000-01-01" })).toEqual([]);
      expect(await audit.compactions({ sessionId: source.id, since: first.occurredAt })).toEqual(all);
      await expect(audit.compactions({ since: "yesterday-ish" })).rejects.toMatchObject({ code: "VALIDATION" });
    });

    it("totals tokens reclaimed per group, equal to the sums over the log", async () => {
      const history = compactionHistory(await runtime.store.readStream(source.id));
      const byMode = await audit.compactionTotals({ sessionId: source.id }, ["mode"]);
      const modes = [...new Set(history.map((h) => h.mode))].sort();
      expect(byMode.map((t) => t.group.mode)).toEqual(modes);
      for (const t of byMode) {
        const of = history.filter((h) => h.mode === t.group.mode);
        expect(t.compactions).toBe(of.length);
        expect(t.tokensReclaimed).toBe(of.reduce((n, h) => n + h.stats.tokensBefore - h.stats.tokensAfter, 0));
        expect(t.sessions).toBe(1);
      }
      const [overall] = await audit.compactionTotals({ sessionId: source.id });
      expect(overall?.compactions).toBe(history.length);
      const byDay = await audit.compactionTotals({ sessionId: source.id }, ["day", "policy"]);
      expect(byDay.every((t) => /^\d{4}-\d{2}-\d{2}$/.test(t.group.day ?? ""))).toBe(true);
      await expect(audit.compactionTotals({}, ["colour" as "mode"])).rejects.toMatchObject({ code: "VALIDATION" });
    });

    it("counts failures by class", async () => {
      const failures = (await runtime.store.readStream(source.id)).filter((e) => e.type === "compaction.failed");
      expect(failures.length).toBe(1);
      expect(await audit.failureTotals({ sessionId: source.id })).toEqual([
        { group: { reason: "rate-limited" }, failures: 1, sessions: 1 },
      ]);
      expect(await audit.failureTotals({ sessionId: source.id, reason: "auth" })).toEqual([]);
    });

    it("answers which compaction superseded a message and what replaced it, and the reverse", async () => {
      const [first] = superseded(await runtime.store.readStream(source.id));
      if (first?.type !== "messages.superseded") throw new Error("no compaction");
      const target = first.data.targets[0] ?? "";
      const [trail] = await audit.message(target);
      expect(trail).toMatchObject({ sessionId: source.id, messageId: target });
      expect(trail?.supersededBy?.compaction.compactionId).toBe(first.data.compactionId);
      expect(trail?.supersededBy?.targets).toEqual(first.data.targets);
      expect(trail?.supersededBy?.replacements).toEqual(
        first.data.replacements.map((r) => ({ messageId: r.message.id, kind: r.kind })),
      );
      const summaryId = first.data.replacements[0]?.message.id ?? "";
      const [back] = await audit.message(summaryId, source.id);
      expect(back?.writtenBy?.compaction.compactionId).toBe(first.data.compactionId);
      expect(back?.writtenBy?.targets).toContain(target);
      expect(await audit.message("never-compacted-id")).toEqual([]);
      const [byId] = await audit.compaction(first.data.compactionId, source.id);
      expect(byId?.targets).toEqual(first.data.targets);
    });

    it("answers lineage in SQL: ancestors, descendants and the hand-off tip", async () => {
      const fromSource = await audit.lineage(source.id);
      expect(fromSource.tip).toBe(successor.id);
      expect(fromSource.chain).toEqual([source.id, successor.id]);
      expect(fromSource.ancestors).toEqual([]);
      expect(fromSource.descendants.map((d) => [d.sessionId, d.depth, d.relation])).toEqual([
        [successor.id, 1, "handoff"],
        [subagent.id, 2, "subagent"],
      ]);
      const fromSub = await audit.lineage(subagent.id);
      expect(fromSub.ancestors.map((a) => a.sessionId)).toEqual([successor.id, source.id]);
      expect(fromSub.tip).toBe(subagent.id);
      await expect(audit.lineage("no-such-session")).rejects.toMatchObject({ code: "NOT_FOUND" });
      const trees = await audit.lineageTrees();
      expect(trees.find((t) => t.rootSessionId === source.id)).toMatchObject({
        sessions: 3,
        depth: 2,
        tip: successor.id,
      });
      expect(trees.some((t) => t.rootSessionId === successor.id || t.rootSessionId === subagent.id)).toBe(false);
    });

    it("shows the view as of any seq, time or turn, equal to a fold of the log up to there", async () => {
      const log = await runtime.store.readStream(source.id);
      const [first] = superseded(log);
      if (first === undefined) throw new Error("no compaction");
      for (const seq of [1, first.seq - 1, first.seq, log.length]) {
        const at = await audit.viewAsOf(source.id, { seq });
        expect(at.seq).toBe(seq);
        expect(at.view).toEqual(activeView(foldEvents(initialState(source.id), log.slice(0, seq))));
      }
      const turn3 = await audit.viewAsOf(source.id, { turn: 3 });
      expect(turn3.view.messages.map((m) => m.id).at(-1)).toBe("r2");
      const atTime = await audit.viewAsOf(source.id, { time: first.occurredAt });
      expect(atTime.seq).toBeGreaterThanOrEqual(first.seq);
      expect((await audit.viewAsOf(source.id, { time: "2000-01-01" })).view.messages).toEqual([]);
      await expect(audit.viewAsOf(source.id, { seq: log.length + 5 })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(audit.viewAsOf(source.id, { turn: 0 })).rejects.toMatchObject({ code: "VALIDATION" });
      await expect(audit.viewAsOf("no-such-session", { seq: 1 })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });

    it("rebuilds every read model from the log and finds the rows that drifted", async () => {
      expect(await audit.rebuild({ checkOnly: true })).toMatchObject({
        equal: true,
        differenceCount: 0,
        replaced: false,
      });
      const db = databaseOf(runtime.store);
      const [c] = await audit.compactions({ sessionId: source.id });
      await db
        .updateTable("audit_compactions")
        .set({ tokens_reclaimed: -1 })
        .where("session_id", "=", source.id)
        .where("seq", "=", c?.seq ?? 0)
        .execute();
      await db.deleteFrom("audit_replacements").where("session_id", "=", source.id).execute();
      const drifted = await audit.rebuild({ checkOnly: true });
      expect(drifted.equal).toBe(false);
      expect(drifted.differences.map((d) => d.table)).toContain("audit_compactions");
      expect(drifted.differences.some((d) => d.table === "audit_replacements" && d.live === null)).toBe(true);
      expect((await audit.compactions({ sessionId: source.id }))[0]?.tokensReclaimed).toBe(-1); // a check changes nothing
      const progress: number[] = [];
      const fixed = await audit.rebuild({ onProgress: (p) => progress.push(p.events) });
      expect(fixed).toMatchObject({ equal: false, replaced: true });
      expect(progress.at(-1)).toBe(fixed.events);
      expect(await audit.rebuild({ checkOnly: true })).toMatchObject({ equal: true });
      expect((await audit.compactions({ sessionId: source.id }))[0]?.tokensReclaimed).toBe(c?.tokensReclaimed);
    });

    it("keeps a row for a stream without a session.started event, and a rebuild agrees", async () => {
      const store = runtime.store as OpenedEventStore;
      const sid = `raw-${source.id}`;
      const message = { id: "raw-1", role: "user" as const, content: [{ type: "text" as const, text: "hi" }] };
      await store.append(sid, [{ type: "message.appended", data: { message, tokens: 1 } }], {
        expectedVersion: "no-stream",
      });
      expect(await audit.lineage(sid)).toMatchObject({ session: { sessionId: sid, startedAt: null }, tip: sid });
      expect(await audit.rebuild({ checkOnly: true })).toMatchObject({ equal: true });
    });

    it("follows commits in the background, from this process and another, until stopped", async () => {
      const follower = new AuditReadModels(runtime.store, { catchUpOnRead: false });
      const stop = follower.follow();
      try {
        const s = await other.startSession({ contextWindow: WINDOW, profile: "local" });
        await grow(s, 0, 12);
        await compact(s, { policy: "summary", force: true });
        await vi.waitFor(async () => expect(await follower.compactions({ sessionId: s.id })).toHaveLength(1), {
          timeout: 10_000,
        });
      } finally {
        await stop();
      }
      const later = await runtime.startSession({});
      await expect(follower.lineage(later.id)).rejects.toMatchObject({ code: "NOT_FOUND" }); // stopped: not projected
    });

    it("stays equal to a rebuild when two processes project while sessions keep appending", async () => {
      const otherAudit = new AuditReadModels(other.store, { catchUpOnRead: false });
      const writers = [0, 1, 2].map(async () => {
        const s = await other.startSession({ contextWindow: WINDOW, profile: "local" });
        await grow(s, 0, 12);
        await compact(s, { policy: "summary", force: true });
        return s.id;
      });
      const projectors = [audit, otherAudit].map(async (a) => {
        for (let i = 0; i < 15; i++) await a.catchUp();
      });
      const ids = await Promise.all(writers);
      await Promise.all(projectors);
      await audit.catchUp();
      expect(await audit.rebuild({ checkOnly: true })).toMatchObject({ equal: true });
      for (const id of ids) {
        const history = compactionHistory(await runtime.store.readStream(id));
        expect((await audit.compactions({ sessionId: id })).map((c) => c.compactionId)).toEqual(
          history.map((h) => h.compactionId),
        );
      }
    });
  });
}
