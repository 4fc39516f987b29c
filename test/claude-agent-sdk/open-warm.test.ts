/**
 * openSessionStore opens its store as openPalimpsest does (openWarmedStore): the store's appends rehearsed
 * once at open, writing nothing, so neither its first mirror appends nor its folds prepare statements or load
 * the tokenizer while the SDK appends; and it rehearses a SessionStore append (a model step's lines, the
 * SDK's summary fold, the mirror's first append rolled back). A failing warm-up does not fail the open.
 */

import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { StorageError } from "@palimpsest/core";
import { MirrorLog } from "@palimpsest/store";
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

    test(`rehearses a SessionStore append of a model step once at open, storing nothing (${engine.name})`, async () => {
      const database = await engine.create("open_warm_mirror");
      const rehearsals = vi.spyOn(MirrorLog.prototype, "rehearseFirstAppend");
      try {
        const store = await openSessionStore({ url: database.url });
        expect(rehearsals).toHaveBeenCalledOnce();
        const [key, lines, summarize] = rehearsals.mock.calls[0] ?? [];
        expect(key?.subpath).toBeUndefined(); // a main key: its summary is folded
        expect(lines?.map((line) => JSON.parse(line.text).type)).toEqual(["user", "assistant", "user"]);
        expect(summarize).toBeTypeOf("function");
        await expect(rehearsals.mock.results[0]?.value).resolves.toBeUndefined(); // it ran, and did not fail
        expect(await store.listSessions(key?.project ?? "")).toEqual([]);
        await store.close();
      } finally {
        await database.drop();
      }
    });

    const warmUps = [
      { name: "the store's warm-up", spy: () => vi.spyOn(SqlEventStore.prototype, "warmUpAppends") },
      { name: "the mirror's rehearsal", spy: () => vi.spyOn(MirrorLog.prototype, "rehearseFirstAppend") },
    ];
    for (const warmUp of warmUps) {
      test(`opens all the same when ${warmUp.name} fails (${engine.name})`, async () => {
        const database = await engine.create("open_warm_fails");
        const failing = warmUp.spy().mockRejectedValue(new StorageError("warmUp", "refused"));
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
  }
});
