import { openPalimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, engineDatabases } from "../cli/harness.ts";
import { exchange } from "../support/exchange.ts";
import { rejection } from "../support/rejection.ts";

const databases = engineDatabases();

for (const [name, open, skip] of databases) {
  describe.skipIf(skip !== undefined)(`a runtime used after close() (${name})`, () => {
    let db: CliDatabase;
    beforeAll(async () => {
      db = await open();
    });
    afterAll(() => db?.dispose());

    it("refuses every call with STORAGE `the store is closed`, not retryable, whichever engine and layer", async () => {
      const runtime = await openPalimpsest({ url: db.url });
      const session = await runtime.startSession({ model: "gpt-4o" });
      await session.append(exchange(0), { turnId: "t0", completeTurn: true });
      await runtime.close();
      const calls: [string, () => Promise<unknown>][] = [
        ["append", () => session.append(exchange(1))],
        ["startSession", () => runtime.startSession({ model: "gpt-4o" })],
        ["resume", () => runtime.resume(session.id)],
        ["sessions", () => runtime.sessions()],
        ["readLog", () => session.readLog()],
        ["recall", () => session.recall("exchange")],
        ["erase", () => runtime.erase(session.id)],
        ["handoffs", () => runtime.handoffs.list()],
      ];
      for (const [call, run] of calls) {
        const error = await rejection(run());
        expect(error.code, call).toBe("STORAGE");
        expect(error.retryable, call).toBe(false);
        expect(error.message, call).toMatch(/^[\w.]+: the store is closed$/);
      }
    });
  });
}
