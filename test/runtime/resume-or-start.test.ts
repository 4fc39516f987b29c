import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { runtimeBackends } from "../support/runtime-backends.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`Palimpsest.resumeOrStart (${backend.name})`, () => {
    let runtime: Palimpsest;
    let other: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
      other = await backend.open(); // another "process"
    });
    afterAll(() => backend.dispose());

    it("resumes by id or by name, starts under an unknown id, and a new session without one", async () => {
      const named = await runtime.startSession({
        model: "gpt-4o",
        source: { format: "test", externalId: `n-${Date.now()}` },
      });
      await named.append({ role: "user", content: "hi" });
      expect((await other.resumeOrStart(named.id)).state.lastSeq).toBe(2);
      expect((await other.resumeOrStart(named.state.started?.source?.externalId)).id).toBe(named.id);
      const id = `fresh-${Date.now()}`;
      const started = await other.resumeOrStart(id, { model: "gpt-4.1", contextWindow: 8_000 });
      expect(started.id).toBe(id);
      expect(started.state.started).toMatchObject({ model: "gpt-4.1", contextWindow: 8_000 });
      expect((await runtime.resumeOrStart(undefined)).id).not.toBe(id);
    });

    it("two processes starting the same id at once get the one session", async () => {
      const id = `raced-${Date.now()}`;
      const [a, b] = await Promise.all([runtime.resumeOrStart(id), other.resumeOrStart(id)]);
      expect([a.id, b.id]).toEqual([id, id]);
      expect((await runtime.store.readStream(id)).filter((e) => e.type === "session.started")).toHaveLength(1);
    });

    it("refuses a malformed id before touching the store", async () => {
      expect((await rejection(runtime.resumeOrStart("bad\0id"))).code).toBe("VALIDATION");
    });
  });
}
