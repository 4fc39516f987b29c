import type { PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { rejection } from "../support/rejection.ts";
import { TranscriptWriter, text } from "./claude-code-lines.ts";
import { type ContractContext, entries, newKey } from "./contract-context.ts";

/** Every method of a store, called once with harmless arguments. */
function everyCall(store: PalimpsestSessionStore): [string, () => Promise<unknown>][] {
  const key = newKey();
  return [
    ["append", () => store.append(key, entries(1))],
    ["load", () => store.load(key)],
    ["listSessions", () => store.listSessions(key.projectKey)],
    ["listSessionSummaries", () => store.listSessionSummaries(key.projectKey)],
    ["delete", () => store.delete(key)],
    ["erase", () => store.erase(key, { reason: "r" })],
    ["listSubkeys", () => store.listSubkeys(key)],
    ["sessionIds", () => store.sessionIds(key)],
    ["flush", () => store.flush()],
  ];
}

/** openSessionStore's options, and close. */
export function openCloseContract({ fresh }: ContractContext): void {
  describe("openSessionStore and close", () => {
    it("refuses an unknown option with VALIDATION naming it, opening nothing", async () => {
      const database = await fresh();
      const options = { url: database.url, settleMS: 10 } as never;
      const error = await rejection(openSessionStore(options));
      expect(error.code).toBe("VALIDATION");
      expect((error.details as { path?: string }).path).toBe("settleMS");
      expect(error.message).toContain("settleMS");
    });

    it("closes idempotently, after which every call rejects with STORAGE", async () => {
      const database = await fresh();
      const store = await database.open();
      const key = newKey();
      const stored = entries(2);
      await store.append(key, stored);
      await store.close();
      await store.close();
      await Promise.all([store.close(), store.close()]);
      for (const [name, call] of everyCall(store)) {
        const error = await rejection(call());
        expect({ name, code: error.code }).toEqual({ name, code: "STORAGE" });
      }
      const reopened = await database.open();
      expect(await reopened.load(key)).toEqual(stored);
    });

    it("finishes pending appends and folds on close", async () => {
      const database = await fresh();
      const store = await database.open({ settleMs: 600_000 });
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      const needle = `closing-${w.sessionId}`;
      const sent = [w.user(`a prompt ${needle}`), w.assistant("msg_1", text(`the trailing reply ${needle}`))];
      const appends = sent.map((line) => store.append(key, [line]));
      await store.close();
      await Promise.all(appends);
      // Read before any store opens again (an open folds what was left unfolded).
      const events = await database.eventTexts();
      expect(events.filter((row) => row.includes(`a prompt ${needle}`))).toHaveLength(1);
      expect(events.filter((row) => row.includes(`the trailing reply ${needle}`))).toHaveLength(1);
      const reopened = await database.open();
      expect(await reopened.load(key)).toEqual(sent);
    });
  });
}
