import { ConcurrencyConflict, NotFoundError, type StoreChange } from "@palimpsest/core";
import { describe, expect, it, vi } from "vitest";
import type { ContractContext, ContractStore } from "./contract-backend.ts";
import { newSessionId, started, textOf, userMessage } from "./fixtures.ts";

/** Two tenants on one database: each sees its own sessions only, and nothing of the other's. */
export function tenantsContract(ctx: ContractContext): void {
  describe("tenants", () => {
    const open = (tenant: string) => ctx.backend().open({ tenant });

    it("keeps two sessions with the same id apart when two tenants use it", async () => {
      const [acme, globex] = [await open("acme"), await open("globex")];
      const sid = newSessionId("shared");
      await acme.append(sid, [started(), userMessage("m1", "acme's")], { expectedVersion: "no-stream" });
      const theirs = await globex.append(sid, [started(), userMessage("m1", "globex's")], {
        expectedVersion: "no-stream",
        idempotencyKey: "k1",
      });
      expect(theirs.nextExpectedVersion).toBe(2);
      const [acmeLog, globexLog] = [await acme.readStream(sid), await globex.readStream(sid)];
      expect(acmeLog.map((e) => e.tenantId)).toEqual(["acme", "acme"]);
      expect(globexLog.map((e) => e.tenantId)).toEqual(["globex", "globex"]);
      expect(textOf(acmeLog[1] ?? started())).toBe("acme's");
      expect(textOf(globexLog[1] ?? started())).toBe("globex's");
      expect(await acme.keyedBatch(sid, "k1")).toBeUndefined();
      expect(await globex.keyedBatch(sid, "k1")).toEqual({ firstSeq: 1, lastSeq: 2 });
      expect(await acme.knownKeys(sid, ["message:m1"])).toEqual(new Set(["message:m1"]));
      expect((await acme.getSession(sid))?.version).toBe(2);
    });

    it("gives a tenant nothing of another tenant's session, even by its exact id", async () => {
      const [acme, globex] = [await open("acme"), await open("globex")];
      const sid = newSessionId("private");
      const written = await acme.append(sid, [started(), userMessage("secret", "acme only")], {
        expectedVersion: "no-stream",
        idempotencyKey: "private-key",
      });
      await acme.saveSnapshot({ sessionId: sid, seq: 2, format: 1, state: "{}", checksum: "c" });

      expect(await globex.readStream(sid)).toEqual([]);
      expect(await globex.getSession(sid)).toBeUndefined();
      expect((await globex.listSessions()).map((s) => s.sessionId)).not.toContain(sid);
      const page = await globex.listSessionPage?.({ limit: 100 });
      expect(page?.sessions.map((s) => s.sessionId) ?? []).not.toContain(sid);
      expect(await globex.knownKeys(sid, ["message:secret"])).toEqual(new Set());
      expect(await globex.keyedBatch(sid, "private-key")).toBeUndefined();
      expect(await globex.loadSnapshot(sid)).toBeUndefined();
      expect(await allEvents(globex)).not.toContainEqual(expect.objectContaining({ sessionId: sid }));
      await expect(globex.erase(sid)).rejects.toBeInstanceOf(NotFoundError);
      const conflict = await globex.append(sid, [userMessage("m", "x")], { expectedVersion: 2 }).catch((e) => e);
      expect(conflict).toBeInstanceOf(ConcurrencyConflict);
      expect(conflict).toMatchObject({ details: { expected: 2, actual: 0 } });
      await globex.deleteSnapshot(sid);

      // Acme's session is as it was written.
      expect(await acme.readStream(sid)).toEqual(written.events);
      expect(await acme.loadSnapshot(sid)).toMatchObject({ seq: 2 });
      expect((await acme.getSession(sid))?.erasedAt ?? null).toBeNull();
      // Global readers see a commit once no older transaction on the server is open: wait for it.
      await vi.waitFor(async () => expect(await allEvents(acme)).toEqual(expect.arrayContaining(written.events)));
    });

    it("wakes a tenant's listeners for its own commits only", async () => {
      const [acme, globex, globexWriter] = [await open("acme"), await open("globex"), await open("globex")];
      const heard: StoreChange[] = [];
      const ours = newSessionId("ours");
      const heardOurs = new Promise<void>((resolve) => {
        globex.subscribe((change) => {
          heard.push(change);
          if (change.sessionId === ours) resolve();
        });
      });
      await globex.listening();
      const theirs = newSessionId("theirs");
      await acme.append(theirs, [started()], { expectedVersion: "no-stream" });
      // Committed after acme's append, and heard the same way (another connection): once it is heard,
      // acme's has been too, had it been delivered.
      await globexWriter.append(ours, [started()], { expectedVersion: "no-stream" });
      await heardOurs;
      expect(heard.map((c) => c.sessionId)).not.toContain(theirs);
    });
  });
}

/** Every event of the global log a store can read, from the start. */
async function allEvents(store: ContractStore) {
  return (await store.readAll()).events;
}
