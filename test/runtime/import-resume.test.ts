import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ImportedSession, parseTranscript } from "@palimpsest/core";
import { createTokenCounter } from "@palimpsest/core/tokenizer";
import { importSessions, Palimpsest } from "@palimpsest/runtime";
import { importSession } from "@palimpsest/runtime/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { viewProblems } from "../support/view-invariants.ts";

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

    /**
     * Imports `later` through a runtime whose read of the (empty) log waits until `first` has been
     * imported and committed: what a second process folding the same mirrored key a moment later does.
     */
    async function importRacing(first: ImportedSession, later: ImportedSession, sessionId: string) {
      let open = (): void => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const raw = (await backend.open()).store;
      const gated = new Proxy(raw, {
        get(target, name) {
          if (name === "readStream") {
            return async (...args: Parameters<typeof raw.readStream>) => {
              const events = await target.readStream(...args);
              await gate;
              return events;
            };
          }
          const value = Reflect.get(target, name);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const late = new Palimpsest({ store: gated, counterFor: createTokenCounter });
      const second = importSession(late, later, { sessionId, revise: true }).catch((error: unknown) => error);
      await importSession(runtime, first, { sessionId, revise: true });
      open();
      return second;
    }

    /** The demo up to its last assistant message, untitled, and that message with one more block. */
    function versions(externalId: string) {
      const [source] = parseTranscript(DEMO, { fileName: "demo-session.jsonl" });
      if (source === undefined) throw new Error("no session parsed");
      const at = source.items.findLastIndex((i) => i.kind === "message" && i.message.role === "assistant");
      const items = source.items.slice(0, at + 1);
      const last = items.at(-1);
      if (last?.kind !== "message") throw new Error("no assistant message");
      const grown = {
        ...last,
        message: { ...last.message, content: [...last.message.content, { type: "text" as const, text: "one more" }] },
      };
      const { title: _title, ...untitled } = source;
      const v1 = { ...untitled, externalId, items };
      return { v1, grown, v2: { ...v1, items: [...items.slice(0, -1), grown] } };
    }

    it("two imports of one session at once, the same items in two versions (a mirror's trailing message grew): the later reads again and revises, never a conflict or an idempotency mismatch", async () => {
      const { v1, v2, grown } = versions("grown-twice");
      const sessionId = "00000000-0000-8000-a000-00000000c0de";
      const result = await importRacing(v1, v2, sessionId);
      expect(result, String(result)).toMatchObject({ sessionId, created: false, resumed: true });
      const view = (await runtime.resume(sessionId)).view().messages;
      expect(view.at(-1)?.content).toEqual(grown.message.content);
      expect(view.at(-1)?.id).toMatch(new RegExp(`^${grown.message.id}~r\\d+$`));
    });

    it("an import of an older version of a message the log holds grown (a fold that read the key before another process's fold wrote more) takes nothing back", async () => {
      const { v1, v2, grown } = versions("stale-fold");
      const sessionId = "00000000-0000-8000-a000-00000000057a";
      await importSession(runtime, v2, { sessionId, revise: true });
      const before = await runtime.store.readStream(sessionId);
      await importSession(runtime, v1, { sessionId, revise: true });
      expect(await runtime.store.readStream(sessionId)).toEqual(before);
      expect((await runtime.resume(sessionId)).view().messages.at(-1)?.content).toEqual(grown.message.content);
      // The other way round, the grown version still revises the older one.
      const other = "00000000-0000-8000-a000-00000000057b";
      await importSession(runtime, { ...v1, externalId: "stale-fold-2" }, { sessionId: other, revise: true });
      await importSession(runtime, { ...v2, externalId: "stale-fold-2" }, { sessionId: other, revise: true });
      expect((await runtime.resume(other)).view().messages.at(-1)?.content).toEqual(grown.message.content);
    });

    it("two first imports at once of the same items with different starts (a title line arrived in between): the later reads again and finds everything there, never a conflict or an idempotency mismatch", async () => {
      const { v1 } = versions("titled-late");
      const sessionId = "00000000-0000-8000-a000-0000000071e1";
      const result = await importRacing(v1, { ...v1, title: "a title line arrived" }, sessionId);
      expect(result, String(result)).toMatchObject({ sessionId, created: false, resumed: false });
      const log = await runtime.store.readStream(sessionId);
      expect(log.filter((e) => e.type === "session.started")).toHaveLength(1);
      expect(viewProblems(await runtime.resume(sessionId), log)).toEqual([]);
    });
  });
}
