/**
 * Session.recall on every engine, plain and encrypted: the original messages that hold a query's words,
 * superseded ones with the compaction that took them out, ranked, paged, the lineage's included (a
 * fork finds its parent's), nothing of an erased session; bad input refused with VALIDATION.
 */
import { compactRange, type Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { everyLayoutBackends } from "../support/runtime-backends.ts";

/** Turn `n`: a request naming `topic`, a shell call running `command`, its output, the answer. */
function turn(n: number, topic: string, command: string, output: string) {
  return [
    { id: `u${n}`, role: "user" as const, content: `please look into ${topic}` },
    {
      id: `a${n}`,
      role: "assistant" as const,
      content: "checking",
      toolCalls: [{ id: `c${n}`, name: "shell", arguments: JSON.stringify({ command }) }],
    },
    { id: `t${n}`, role: "tool" as const, toolCallId: `c${n}`, content: output },
    { id: `r${n}`, role: "assistant" as const, content: `done with turn ${n}` },
  ];
}

for (const backend of everyLayoutBackends()) {
  describe.skipIf(backend.skip !== undefined)(`recall (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("gives back superseded originals with their compaction and a snippet, best first, in pages", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append(
        turn(1, "the login timeout", "pnpm vitest run auth", "FAIL auth/login.test.ts: TimeoutError after 30000 ms"),
      );
      await session.append(
        turn(2, "the billing export", "psql -c 'select count(*) from invoices'", " count \n-------\n  4182"),
      );
      await session.append(turn(3, "flaky login again", "git log --oneline -3", "a1b2c3d fix login flake"));
      const [compaction] = await compactRange(session, {
        fromId: "u1",
        toId: "r2",
        summary: "fixed login, exported billing",
      });
      const compactionId = compaction?.type === "messages.superseded" ? compaction.data.compactionId : "none";
      const found = await session.recall("TimeoutError 30000");
      expect(found.terms).toEqual(["timeouterror", "30000"]);
      expect(found.messages.map((m) => [m.message.id, m.supersededBy])).toEqual([["t1", compactionId]]);
      expect(found.messages[0]?.snippet).toContain("TimeoutError after 30000 ms");
      expect(found.messages[0]).toMatchObject({ sessionId: session.id, seq: 4 });
      // "login" is in u1 (superseded) and u3, t3 (live): all found, the live ones without a compaction.
      const login = await session.recall("login", { limit: 10 });
      expect(login.messages.map((m) => m.message.id).sort()).toEqual(["t1", "t3", "u1", "u3"]);
      for (const m of login.messages) expect(m.supersededBy === undefined).toBe(["t3", "u3"].includes(m.message.id));
      const first = await session.recall("login", { limit: 3 });
      expect(first.nextOffset).toBe(3);
      const rest = await session.recall("login", { limit: 3, offset: 3 });
      expect(rest.nextOffset).toBeNull();
      expect([...first.messages, ...rest.messages].map((m) => m.message.id)).toEqual(
        login.messages.map((m) => m.message.id),
      );
      expect((await session.recall("4182 invoices")).messages.map((m) => m.message.id).sort()).toEqual(["a2", "t2"]);
    });

    it("a fork recalls what only its parent's log holds, once, and not the parent's other branch; an erased parent gives nothing", async () => {
      const parent = await runtime.startSession({ model: "gpt-4o" });
      await parent.append(turn(1, "the kafka consumer lag", "kubectl logs consumer-7", "lag=91823 partition=12"));
      await parent.append(turn(2, "the redis eviction", "redis-cli info", "evicted_keys:5512"));
      await compactRange(parent, { fromId: "u1", toId: "r1", summary: "looked at the consumer" });
      const fork = await runtime.fork(parent.id); // the parent's view now: the summary and turn 2
      await parent.append(turn(3, "the kafka broker disk", "df -h", "/data 97% used")); // after the fork
      await fork.append({ id: "f1", role: "user", content: "try another way" });
      const where = async (query: string, lineage = true) =>
        (await fork.recall(query, { limit: 20, lineage })).messages.map((m) => [
          m.sessionId === fork.id ? "fork" : "parent",
          m.message.id,
        ]);
      // Turn 1's originals are in the parent's log only (the fork carried the summary); turn 3 is the parent's other branch.
      expect((await where("kafka lag")).sort()).toEqual([
        ["parent", "t1"],
        ["parent", "u1"],
      ]);
      expect(await where("kafka lag", false)).toEqual([]);
      // Turn 2 is in both logs (the fork carried it): found once, in the fork's own log.
      expect((await where("redis eviction 5512")).sort()).toEqual([
        ["fork", "a2"],
        ["fork", "t2"],
        ["fork", "u2"],
      ]);
      expect(await where("91823 partition")).toEqual([["parent", "t1"]]);
      await runtime.erase(parent.id);
      expect(await where("91823 partition")).toEqual([]);
    });

    it("refuses a query without words and bad options with VALIDATION", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      const refusals = [
        [session.recall("  ...  "), "query"],
        [session.recall("x", { limit: 0 }), "limit"],
        [session.recall("x", { limit: 51 }), "limit"],
        [session.recall("x", { offset: -1 }), "offset"],
        [session.recall("x", { lineage: "yes" as unknown as boolean }), "lineage"],
      ] as const;
      for (const [call, path] of refusals) {
        const error = await rejection(call);
        expect([error.code, error.details.path]).toEqual(["VALIDATION", path]);
      }
      expect((await rejection(session.recall("x", { bogus: 1 } as never))).code).toBe("VALIDATION");
    });
  });
}
