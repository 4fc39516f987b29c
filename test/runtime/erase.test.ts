import { type InvariantViolation, isPalimpsestError } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { compact, microCompact, Palimpsest, type Session } from "@palimpsest/runtime";
import { AuditReadModels, type OpenedEventStore } from "@palimpsest/store";
import { afterEach, describe, expect, it } from "vitest";
import { dumpDatabase, occurrences, rowsMentioning } from "../support/database-scan.ts";
import { postgresServer } from "../support/postgres-server.ts";
import { rejection } from "../support/rejection.ts";
import { postgresBackend, type StoreBackend, sqliteBackend } from "../support/store-backends.ts";
import { markedTurn, populatedSession, uniqueMarker } from "./erase-fixtures.ts";

const server = postgresServer();
const backends: { name: string; make: () => Promise<StoreBackend>; skip?: string }[] = [
  { name: "sqlite", make: sqliteBackend },
  "skip" in server
    ? { name: "postgres", make: () => Promise.reject(new Error(server.skip)), skip: server.skip }
    : { name: "postgres", make: () => postgresBackend(server.url) },
];

/** What a reader can see of a session without its content: ids, roles, tokens, compaction records. */
async function shape(runtime: Palimpsest, session: Session) {
  const resumed = await runtime.resume(session.id);
  const view = resumed.view();
  const history = await resumed.history();
  const expanded = await Promise.all(history.map((h) => resumed.expand(h.compactionId, true)));
  return {
    view: { tokens: view.tokens, viewVersion: view.viewVersion, ids: view.messages.map((m) => [m.id, m.role]) },
    history,
    expanded: expanded.map((list) => list.map((e) => [e.message.id, e.message.role, e.tokens, e.seq])),
    resume: { ...resumed.resumeState(), lastSeq: 0, erasedAt: undefined, settings: undefined },
  };
}

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`erasure (${backend.name})`, () => {
    let disposers: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const dispose of disposers) await dispose();
      disposers = [];
    });

    /** A store of this test's own, and a runtime on it that snapshots after every write. */
    async function fresh(): Promise<{ runtime: Palimpsest; store: OpenedEventStore; audit: AuditReadModels }> {
      const made = await backend.make();
      disposers.push(() => made.dispose());
      const store = await made.open();
      const runtime = new Palimpsest({ store, counterFor: createTokenCounter, snapshotEvery: 1 });
      return { runtime, store, audit: new AuditReadModels(store) };
    }

    it("removes every content string from every table, keeps the skeleton and the audit figures", async () => {
      const { runtime, store, audit } = await fresh();
      const marker = uniqueMarker("a");
      const otherMarker = uniqueMarker("b");
      const session = await populatedSession(runtime, marker);
      const other = await populatedSession(runtime, otherMarker);
      const totals = async () => ({
        compactions: await audit.compactionTotals({ sessionId: session.id }, ["mode"]),
        failures: await audit.failureTotals({ sessionId: session.id }),
        lineage: await audit.lineage(session.id),
        listed: (await audit.compactions({ sessionId: session.id })).map((c) => ({ ...c, occurredAt: "" })),
      });
      const auditBefore = await totals();
      const shapeBefore = await shape(runtime, session);
      await runtime.settled(); // the snapshots, written in the background
      const before = await dumpDatabase(store);
      expect(occurrences(before, marker).length).toBeGreaterThan(10);
      const tables = new Set(occurrences(before, marker).map((o) => o.split(":")[0]));
      // The copies beside the log exist, so the scan below proves they were erased.
      for (const t of ["events", "snapshots", "precompaction_candidates", "handoffs"]) expect(tables).toContain(t);

      const result = await runtime.erase(session.id, { reason: "ticket 42" });
      expect(result).toMatchObject({ sessionId: session.id, erased: true, events: session.state.lastSeq });
      expect(result.seq).toBe(session.state.lastSeq + 1);
      expect(result.messages).toBeGreaterThan(20);

      const after = await dumpDatabase(store);
      expect(occurrences(after, marker)).toEqual([]);
      expect(rowsMentioning(after, other.id)).toEqual(rowsMentioning(before, other.id));
      expect(occurrences(after, otherMarker).length).toBe(occurrences(before, otherMarker).length);

      expect(await totals()).toEqual(auditBefore);
      const rebuilt = await audit.rebuild({ checkOnly: true });
      expect(rebuilt.equal).toBe(true);
      expect(await shape(runtime, session)).toEqual(shapeBefore);

      const summary = await store.getSession(session.id);
      expect(summary?.erasedAt).toBe(result.erasedAt);
      const log = await store.readStream(session.id);
      expect(log.at(-1)).toMatchObject({ type: "session.erased", data: { reason: "ticket 42" } });
      const resumed = await runtime.resume(session.id);
      expect(resumed.resumeState().erasedAt).toBe(result.erasedAt);
      for (const m of resumed.view().messages) expect(m.content).toEqual([]);
    });

    it("refuses every later write with session-erased, from fresh and stale handles alike", async () => {
      const { runtime, store } = await fresh();
      const marker = uniqueMarker("w");
      const stale = await populatedSession(runtime, marker);
      await runtime.erase(stale.id);
      const resumed = await runtime.resume(stale.id);
      const writes: [string, () => Promise<unknown>][] = [
        ["resumed append", () => resumed.append({ role: "user", content: `${marker} again` })],
        ["stale append", () => markedTurn(stale, marker, 9)],
        ["stale retry of a keyed append", () => markedTurn(stale, marker, 0)],
        [
          "raw append",
          () => store.append(stale.id, [{ type: "turn.completed", data: { turnId: "x" } }], { expectedVersion: "any" }),
        ],
        ["hand-off", () => runtime.handOff(resumed)],
        ["queued hand-off", () => runtime.handoffs.request(stale.id)],
        ["compaction under the threshold", () => compact(resumed)],
        ["forced compaction", () => compact(resumed, { force: true })],
        ["stale forced compaction", () => compact(stale, { force: true })],
        ["micro pass", () => microCompact(resumed)],
      ];
      for (const [what, write] of writes) {
        const error = await rejection(write());
        expect(error.code, what).toBe("INVARIANT_VIOLATED");
        expect((error as InvariantViolation).details.rule, what).toBe("session-erased");
      }
      expect(occurrences(await dumpDatabase(store), marker)).toEqual([]);
    });

    it("raced by a second store appending and erasing at once: one erasure, acknowledged appends redacted, the rest refused", async () => {
      const made = await backend.make();
      disposers.push(() => made.dispose());
      const [one, two] = [await made.open(), await made.open()];
      const runtimeOne = new Palimpsest({ store: one, counterFor: createTokenCounter });
      const runtimeTwo = new Palimpsest({ store: two, counterFor: createTokenCounter });
      const marker = uniqueMarker("r");
      const session = await populatedSession(runtimeOne, marker);
      const writer = await runtimeTwo.resume(session.id);
      const outcomes: string[] = [];
      const appends = (async () => {
        for (let n = 0; n < 20; n++) {
          try {
            await writer.append({ id: `late${n}`, role: "user", content: `${marker} late ${n}` });
            outcomes.push("stored");
          } catch (error) {
            if (!isPalimpsestError(error)) throw error;
            outcomes.push(`${error.code} ${(error as InvariantViolation).details.rule ?? ""}`);
            if ((error as InvariantViolation).details.rule === "session-erased") return;
            await writer.refresh();
          }
        }
      })();
      const [first, second] = await Promise.all([runtimeOne.erase(session.id), runtimeTwo.erase(session.id), appends]);
      expect([first.erased, second.erased].filter(Boolean)).toHaveLength(1);
      const log = await one.readStream(session.id);
      expect(log.filter((e) => e.type === "session.erased")).toHaveLength(1);
      expect(log.at(-1)?.type).toBe("session.erased"); // nothing was stored after the erasure
      const stored = outcomes.filter((o) => o === "stored").length;
      const late = log.filter((e) => e.type === "message.appended" && e.data.message.id.startsWith("late"));
      expect(late).toHaveLength(stored);
      expect(
        outcomes.every((o) => o === "stored" || o.startsWith("INVARIANT_VIOLATED") || o.startsWith("CONCURRENCY")),
      ).toBe(true);
      expect(occurrences(await dumpDatabase(one), marker)).toEqual([]);
    });

    it("bad input is VALIDATION with its path and changes nothing; an odd reason is kept byte for byte", async () => {
      const { runtime, store } = await fresh();
      const session = await populatedSession(runtime, uniqueMarker("b"));
      const dump = await dumpDatabase(store);
      for (const [id, options, path] of [
        ["bad\u0000id", {}, "sessionId"],
        ["lone\uD800", {}, "sessionId"],
        ["", {}, "sessionId"],
        [session.id, { reason: 42 as never }, "reason"],
      ] as const) {
        const error = await rejection(runtime.erase(id, options));
        expect(error.code, JSON.stringify(id)).toBe("VALIDATION");
        expect(error.details, JSON.stringify(id)).toMatchObject({ path });
      }
      expect(await dumpDatabase(store)).toEqual(dump);
      const reason = "ticket <|endoftext|> \u0000 '; DROP TABLE events; --";
      await runtime.erase(session.id, { reason });
      const log = await store.readStream(session.id);
      expect(log.at(-1)).toMatchObject({ type: "session.erased", data: { reason } });
    });

    it("erases a session of more events than one rewrite statement holds", async () => {
      const { runtime, store } = await fresh();
      const marker = uniqueMarker("l");
      const session = await runtime.startSession({ model: "gpt-4o" });
      const messages = Array.from({ length: 1_201 }, (_, i) => ({
        role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
        content: `${marker} message ${i}`,
      }));
      await session.append(messages);
      const before = await shape(runtime, session);
      const result = await runtime.erase(session.id);
      expect(result).toMatchObject({ events: 1_202, messages: 1_201 });
      expect(occurrences(await dumpDatabase(store), marker)).toEqual([]);
      expect(await shape(runtime, session)).toEqual(before);
    });

    it("erasing an unknown session is NOT_FOUND; erasing twice changes nothing", async () => {
      const { runtime, store } = await fresh();
      expect((await rejection(runtime.erase("no-such-session"))).code).toBe("NOT_FOUND");
      const session = await populatedSession(runtime, uniqueMarker("t"));
      const first = await runtime.erase(session.id, { reason: "retention" });
      const dump = await dumpDatabase(store);
      const second = await runtime.erase(session.id, { reason: "another" });
      expect(second).toEqual({ ...first, erased: false });
      expect(await dumpDatabase(store)).toEqual(dump);
    });

    it("a session erased while another handle reads it stores no snapshot or candidate of the old content", async () => {
      const { runtime, store } = await fresh();
      const marker = uniqueMarker("s");
      const session = await populatedSession(runtime, marker);
      const { encodeState } = await import("@palimpsest/core");
      const oldState = encodeState(session.state as Parameters<typeof encodeState>[0]);
      await runtime.erase(session.id);
      await store.saveSnapshot({ sessionId: session.id, ...oldState });
      expect(await store.loadSnapshot(session.id)).toBeUndefined();
      const stored = await store.saveCandidate({
        key: {
          sessionId: session.id,
          lastMessageId: "r4",
          prefixHash: "p",
          systemPromptHash: "s",
          summarizerModel: "m",
          promptVersion: "v1",
        },
        targets: ["u4"],
        summary: `late ${marker}`,
        basisViewVersion: session.state.viewVersion,
        createdAt: Date.now(),
        summaryMs: 1,
      });
      expect(stored).toBe(false);
      expect(occurrences(await dumpDatabase(store), marker)).toEqual([]);
    });
  });
}
