import { compactRange, type Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exchange } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`the last exchange stays verbatim (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("refuses an explicit compaction over the last user message or reply, and writes nothing", async () => {
      const session = await runtime.startSession({ model: "gpt-4o" });
      for (let n = 0; n < 3; n++) await session.append(exchange(n));
      const before = await runtime.store.readStream(session.id);
      for (const [fromId, toId, absorbed] of [
        ["u0", "r2", ["u2", "r2"]],
        ["a2", "r2", ["r2"]],
        ["u2", "u2", ["u2"]],
      ] as const) {
        const error = await rejection(compactRange(session, { fromId, toId, summary: "all of it" }));
        expect(error).toMatchObject({
          code: "INVARIANT_VIOLATED",
          details: { rule: "supersede-absorbs-last-exchange", ids: absorbed },
        });
      }
      expect(await runtime.store.readStream(session.id)).toEqual(before);
      const fresh = await (await backend.open()).resume(session.id);
      expect(
        fresh
          .view()
          .messages.map((m) => m.id)
          .slice(-4),
      ).toEqual(["u2", "a2", "t2", "r2"]);
      // Everything before the last exchange may still be summarized.
      await compactRange(session, { fromId: "u0", toId: "r1", summary: "turns 0 and 1" });
      expect(
        session
          .view()
          .messages.map((m) => m.id)
          .slice(-4),
      ).toEqual(["u2", "a2", "t2", "r2"]);
    });
  });
}
