import { messageText } from "@palimpsest/core";
import type { Palimpsest, Session } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

/** A tool-using exchange whose tool output is far over the local profile's trim limit (4,000 tokens). */
function bigExchange(n: number) {
  const [user, call, , reply] = exchange(n);
  const tool = {
    id: `t${n}`,
    role: "tool" as const,
    toolCallId: `c${n}`,
    content: `line ${n} of output\n`.repeat(3_000),
  };
  return [user, call, tool, reply] as NonNullable<typeof user>[];
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`idempotent retries after a committed write (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open({ compaction: { trimOnAppend: true, profile: "local" } });
    });
    afterAll(() => backend.dispose());

    /** The session's stored events, to check a retry appended nothing. */
    const log = (session: Session) => runtime.store.readStream(session.id);

    it("replays an append retried from the same handle, a resumed handle and a second runtime", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append(exchange(0));
      const first = await session.append(bigExchange(1), { idempotencyKey: "k1" });
      expect(first.some((e) => e.type === "messages.superseded")).toBe(true); // trimmed in the same append
      await session.append(exchange(2)); // the log moves on: the trim's basis and stats would differ now
      const before = await log(session);
      const view = session.view();
      const second = await backend.open({ compaction: { trimOnAppend: true, profile: "local" } });
      for (const handle of [session, await runtime.resume(session.id), await second.resume(session.id)]) {
        const retried = await handle.append(bigExchange(1), { idempotencyKey: "k1" });
        expect(retried).toEqual(first);
        expect(handle.view()).toEqual(view);
      }
      expect(await log(session)).toEqual(before);
    });

    it("replays a retry from a handle that has not seen the committed write", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      const stale = await runtime.resume(session.id);
      await session.append(exchange(1)); // decided on the stale state, the trim's stats would differ
      const first = await session.append(bigExchange(0), { idempotencyKey: "k" });
      await session.append(exchange(2));
      const before = await log(session);
      expect(await stale.append(bigExchange(0), { idempotencyKey: "k" })).toEqual(first);
      expect(stale.view()).toEqual(session.view());
      expect(await log(session)).toEqual(before);
    });

    it("a turn cut between its calls (the process died after the user's message) is finished by the same calls with the same keys in another process, while a third writes", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      const [user, ...response] = exchange(7).map(({ id: _id, ...m }) => m); // ids derived from the keys
      const turn = (handle: Session) => ({
        user: () => handle.append(user as NonNullable<typeof user>, { turnId: "t7", idempotencyKey: "t7/user" }),
        response: () => handle.append(response, { turnId: "t7", idempotencyKey: "t7/response" }),
        complete: () => handle.completeTurn("t7"),
      });
      await turn(session).user(); // ... and then the process died
      const other = await backend.open();
      const bystander = await other.resume(session.id);
      await bystander.append({ role: "user", content: "meanwhile, from another tab" });
      const restarted = await (await backend.open()).resume(session.id);
      const again = turn(restarted);
      await again.user();
      await again.response();
      await again.complete();
      await again.complete(); // and once more, as a caller unsure of its last call would
      const events = await log(session);
      const appended = events.flatMap((e) => (e.type === "message.appended" ? [messageText(e.data.message)] : []));
      expect(appended.filter((text) => text === user?.content)).toHaveLength(1);
      expect(appended).toHaveLength(5);
      expect(events.filter((e) => e.type === "turn.completed")).toHaveLength(1);
      expect(restarted.view().messages.map((m) => m.role)).toEqual(["user", "user", "assistant", "tool", "assistant"]);
    });

    it("refuses a key reused with other content (same ids or new ones) and appends nothing", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append(exchange(0), { idempotencyKey: "k" });
      const before = await log(session);
      const sameIds = exchange(0).map((m) => (m.id === "r0" ? { ...m, content: "another answer" } : m));
      const fresh = await runtime.resume(session.id);
      for (const handle of [session, fresh]) {
        for (const other of [sameIds, exchange(1), exchange(0).slice(0, 2)]) {
          const error = await rejection(handle.append(other, { idempotencyKey: "k" }));
          expect(error).toMatchObject({ code: "IDEMPOTENCY_MISMATCH", details: { sessionId: session.id } });
        }
        const turn = await rejection(handle.append(exchange(0), { idempotencyKey: "k", turnId: "t" }));
        expect(turn.code).toBe("IDEMPOTENCY_MISMATCH");
      }
      expect(await log(session)).toEqual(before);
    });

    it("replays a hand-off successor's start retried with its key, and refuses other messages under it", async () => {
      const source = await runtime.startSession({ model: "gpt-4o" });
      await source.append(exchange(0));
      const successor = await runtime.handOff(source, { toSessionId: `${source.id}-next` });
      const started = successor.state.started;
      if (started === undefined) throw new Error("the successor has no start");
      const key = `handoff:${source.id}`;
      const carried = source.view().messages;
      const before = await log(successor);
      const second = await backend.open();
      for (const handle of [successor, await second.resume(successor.id)]) {
        const retried = await handle.startWith(started, carried, { idempotencyKey: key });
        expect(retried).toEqual(before);
        const other = await rejection(handle.startWith(started, carried.slice(0, 1), { idempotencyKey: key }));
        expect(other.code).toBe("IDEMPOTENCY_MISMATCH");
      }
      expect(await log(successor)).toEqual(before);
    });

    it("does not replay a key the decider never saw: an unused key still gets the decider's error", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append(exchange(0));
      const error = await rejection(session.append(exchange(0), { idempotencyKey: "unused" }));
      expect(error).toMatchObject({ code: "INVARIANT_VIOLATED", details: { rule: "duplicate-message-id" } });
    });
  });
}
