/**
 * `session.append(messages, { turnId, completeTurn })`: the turn's last messages and its completion in
 * one append (one batch, one transaction), then the automatic compaction check as after completeTurn;
 * VALIDATION, with nothing written, for a completion without a turn id or with a usage that is no object.
 * And completeTurn after a handle's own appends is decided without asking the log for the turn's keys
 * (one round trip), and still refuses a turn no append named, records a completed one once, and refuses
 * any once the session is erased.
 */
import type { TelemetryLine } from "@palimpsest/core";
import { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolStep } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { openReportingRuntime } from "../support/telemetry-runtime.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`append with completeTurn (${backend.name})`, () => {
    let runtime: Palimpsest;
    const lines: TelemetryLine[] = [];
    beforeAll(async () => {
      await backend.setup();
      runtime = await openReportingRuntime(backend, lines);
    });
    afterAll(() => backend.dispose());

    it("appends the messages and the turn's completion as one keyed batch, then runs the after-turn check", async () => {
      const session = await runtime.startSession();
      const usage = { promptTokens: 1_200, completionTokens: 40 };
      const events = await session.append(toolStep(1, "output one"), {
        turnId: "t1",
        completeTurn: usage,
        idempotencyKey: "step-1",
      });
      expect(events.map((e) => e.type)).toEqual([...Array(4).fill("message.appended"), "turn.completed"]);
      expect(events.at(-1)?.data).toEqual({ turnId: "t1", usage });
      // One batch: the key covers the messages and the completion.
      const keyed = await runtime.store.keyedBatch(session.id, "step-1");
      expect([keyed?.firstSeq, keyed?.lastSeq]).toEqual([events[0]?.seq, events.at(-1)?.seq]);
      // The after-turn check ran once, as completeTurn runs it.
      expect(lines.filter((l) => l.sessionId === session.id)).toHaveLength(1);
      // A retry replays; completing the turn again records nothing.
      const again = await session.append(toolStep(1, "output one"), {
        turnId: "t1",
        completeTurn: usage,
        idempotencyKey: "step-1",
      });
      expect(again.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
      expect(await session.completeTurn("t1")).toEqual([]);
      // true: completed without usage.
      const bare = await session.append({ role: "user", content: "next" }, { turnId: "t2", completeTurn: true });
      expect(bare.at(-1)).toMatchObject({ type: "turn.completed", data: { turnId: "t2" } });
      expect(bare.at(-1)?.data).not.toHaveProperty("usage");
    });

    it("completes a turn in a planned write's append too, then runs the after-turn check", async () => {
      const session = await runtime.startSession();
      const before = lines.filter((l) => l.sessionId === session.id).length;
      const events = await session.write(() => ({
        kind: "append",
        messages: toolStep(7, "output seven"),
        turnId: "w7",
        completeTurn: { promptTokens: 10, completionTokens: 2 },
      }));
      expect(events.at(-1)).toMatchObject({ type: "turn.completed", data: { turnId: "w7" } });
      expect(lines.filter((l) => l.sessionId === session.id)).toHaveLength(before + 1);
      // A write that completes no turn runs no check.
      await session.write(() => ({ kind: "append", messages: [{ role: "user", content: "more" }], turnId: "w8" }));
      expect(lines.filter((l) => l.sessionId === session.id)).toHaveLength(before + 1);
    });

    it("refuses a completion without a turn id, or with a usage that is no object, writing nothing", async () => {
      const session = await runtime.startSession();
      const before = session.state.lastSeq;
      const cases = [
        { completeTurn: true as const },
        { turnId: "t", completeTurn: "yes" as never },
        { turnId: "t", completeTurn: null as never },
      ];
      for (const options of cases) {
        const error = await rejection(session.append({ role: "user", content: "hi" }, options));
        expect(error, JSON.stringify(options)).toMatchObject({ code: "VALIDATION", details: { path: "completeTurn" } });
      }
      expect((await runtime.store.readStream(session.id)).at(-1)?.seq).toBe(before);
    });

    it("completes a turn its own appends named without asking the log, and still refuses a turn no append named", async () => {
      // The runtime's own store, its knownKeys calls counted.
      const asked: string[][] = [];
      const store = new Proxy(runtime.store, {
        get(target, name, receiver) {
          if (name !== "knownKeys") {
            const value = Reflect.get(target, name, receiver);
            return typeof value === "function" ? value.bind(target) : value;
          }
          return (sessionId: string, keys: string[]) => {
            asked.push(keys);
            return target.knownKeys(sessionId, keys);
          };
        },
      });
      const counting = new Palimpsest({ store, counterFor: (encoding) => runtime.tokenCounter(encoding) });
      const session = await counting.startSession();
      await session.append({ role: "user", content: "hello" }, { turnId: "named" });
      const versionBefore = (await runtime.store.readStream(session.id)).length;
      const [done] = await session.completeTurn("named");
      expect(done).toMatchObject({ type: "turn.completed", seq: versionBefore + 1 });
      expect(asked).toEqual([]);
      expect(await rejection(session.completeTurn("never-named"))).toMatchObject({
        code: "INVARIANT_VIOLATED",
        details: { rule: "unknown-turn" },
      });
      // Another handle completed a turn this one named: this one records nothing, as the log says.
      await session.append({ role: "user", content: "again" }, { turnId: "shared" });
      const other = await runtime.resume(session.id);
      expect(await other.completeTurn("shared")).toHaveLength(1);
      expect(await session.completeTurn("shared")).toEqual([]);
      const completions = (await runtime.store.readStream(session.id)).filter((e) => e.type === "turn.completed");
      expect(completions.map((e) => (e.data as { turnId: string }).turnId)).toEqual(["named", "shared"]);
      // Erased by another caller: completing a turn this handle completed is refused, as the log says.
      await runtime.erase(session.id);
      expect(await rejection(session.completeTurn("named"))).toMatchObject({
        code: "INVARIANT_VIOLATED",
        details: { rule: "session-erased" },
      });
    });
  });
}
