/** A mirrored session handed off in Palimpsest: its fold stops quietly, the SDK's entries keep arriving. */
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliDatabase } from "../cli/harness.ts";
import { DATABASES, EXAMPLE_ENTRIES, EXAMPLE_KEY } from "./example-session.ts";

const entries = EXAMPLE_ENTRIES;
const key = EXAMPLE_KEY;

for (const [name, make] of DATABASES) {
  describe.skipIf(make === undefined)(`a handed-off mirrored session (${name})`, () => {
    let db: CliDatabase;
    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
    });
    afterAll(() => db.dispose());

    it("takes no more folds and reports no error; load still returns every entry", async () => {
      const errors: unknown[] = [];
      const store = await openSessionStore({ url: db.url, onError: (error) => errors.push(error) });
      try {
        await store.append(key, entries.slice(0, 5));
        const [id = ""] = await store.sessionIds(key);
        const before = (await store.runtime.resume(id)).view().messages;
        const successor = await store.runtime.handOff(await store.runtime.resume(id));
        await store.append(key, entries.slice(5));
        await store.flush();
        expect(errors).toEqual([]);
        expect(await store.load(key)).toEqual(entries);
        expect((await store.runtime.resume(id)).view().messages).toEqual(before);
        expect(successor.view().messages.length).toBeGreaterThan(0);
      } finally {
        await store.close();
      }
    });
  });
}
