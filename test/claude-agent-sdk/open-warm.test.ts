/**
 * openSessionStore opens its store as openPalimpsest does (openWarmedStore): the store's appends rehearsed
 * once at open, writing nothing, so neither its first mirror appends nor its folds prepare statements or load
 * the tokenizer while the SDK appends; a failing warm-up does not fail the open.
 */

import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { StorageError } from "@palimpsest/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SqlEventStore } from "../../packages/store/src/open/opened-event-store.ts";
import { testEngines } from "../support/test-engines.ts";

describe("openSessionStore's warm-up", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  for (const engine of testEngines()) {
    const test = engine.skip === undefined ? it : it.skip;

    test(`rehearses the store's appends once at open, and stores nothing for it (${engine.name})`, async () => {
      const database = await engine.create("open_warm");
      const rehearsals = vi.spyOn(SqlEventStore.prototype, "warmUpAppends");
      try {
        const store = await openSessionStore({ url: database.url });
        expect(rehearsals).toHaveBeenCalledOnce();
        expect(await store.listSessions("p")).toEqual([]);
        await store.close();
      } finally {
        await database.drop();
      }
    });

    test(`opens all the same when the warm-up fails (${engine.name})`, async () => {
      const database = await engine.create("open_warm_fails");
      const failing = vi
        .spyOn(SqlEventStore.prototype, "warmUpAppends")
        .mockRejectedValue(new StorageError("warmUpAppends", "refused"));
      try {
        const store = await openSessionStore({ url: database.url });
        expect(failing).toHaveBeenCalledOnce();
        const key = { projectKey: "p", sessionId: "9d3c0a52-5b8e-4f0e-9a51-2f6f3c1a7e10" };
        await store.append(key, [{ type: "user", uuid: "u1", message: { role: "user", content: "Hello" } }]);
        expect(await store.load(key)).toHaveLength(1);
        await store.close();
      } finally {
        await database.drop();
      }
    });
  }
});
