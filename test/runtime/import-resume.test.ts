import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseTranscript } from "@palimpsest/core";
import { importSessions, type Palimpsest } from "@palimpsest/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";

const DEMO = readFileSync(join(import.meta.dirname, "../../examples/demo-session.jsonl"), "utf8");

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`import is idempotent and resumable (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("finishes an import that was cut short, and a second full import writes nothing", async () => {
      const [source] = parseTranscript(DEMO, { fileName: "demo-session.jsonl" });
      if (source === undefined) throw new Error("no session parsed");
      const cut = { ...source, items: source.items.slice(0, 21) };
      const [first] = await importSessions(runtime, [cut]);
      expect(first).toMatchObject({ created: true });
      const [finished] = await importSessions(runtime, [source]);
      expect(finished).toMatchObject({ created: false, resumed: true });
      const session = await runtime.resume(finished?.sessionId ?? "");
      expect(session.view().messages.map((m) => m.id)).toEqual(
        source.items.flatMap((i) => (i.kind === "message" ? [i.message.id] : [])),
      );
      const version = session.state.lastSeq;
      const [again] = await importSessions(runtime, [source]);
      expect(again).toMatchObject({ created: false, resumed: false });
      expect((await runtime.store.getSession(session.id))?.version).toBe(version);
    });
  });
}
