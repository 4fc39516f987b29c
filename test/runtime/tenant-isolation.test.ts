/**
 * Two tenants' runtimes on one database, through everything a runtime offers: one tenant's session is
 * not there for the other, by any of the runtime's ways in, even given its exact id: resume, list,
 * fork, hand off (in process and through the queue), erase, the audit read models, watchers of the whole
 * log and of the session; and the other tenant may take the same id for a session of its own.
 */
import { NotFoundError, type StoredEvent } from "@palimpsest/core";
import { watchEvents } from "@palimpsest/projections/live";
import type { Palimpsest } from "@palimpsest/runtime";
import { AuditReadModels } from "@palimpsest/store";
import { firstValueFrom } from "rxjs";
import { filter, take, toArray } from "rxjs/operators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`two tenants on one database (${backend.name})`, () => {
    let acme: Palimpsest;
    let globex: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      acme = await backend.open({ tenant: "acme", snapshotEvery: 1 });
      globex = await backend.open({ tenant: "globex" });
    });
    afterAll(() => backend.dispose());

    it("keeps a tenant's session out of every way in the other tenant has, even by its exact id", async () => {
      const session = await acme.startSession({ sessionId: "shared-id", model: "gpt-4o" });
      await session.append([
        { id: "u1", role: "user", content: "acme's question" },
        { id: "a1", role: "assistant", content: "acme's answer" },
        { id: "u2", role: "user", content: "acme's next question" },
        { id: "a2", role: "assistant", content: "acme's next answer" },
      ]);
      await session.supersede({
        compactionId: "c1",
        targets: ["u1", "a1"],
        replacements: [
          { kind: "summary", message: { id: "s1", role: "user", content: [{ type: "text", text: "q" }] }, tokens: 1 },
        ],
        mode: "summary",
        basis: { viewVersion: session.state.viewVersion },
        producer: { policy: "test" },
        stats: { tokensBefore: 5, tokensAfter: 1 },
        trigger: "manual",
      });
      const fork = await acme.fork(session.id, { toSessionId: "acme-fork" });
      await acme.handoffs.request(fork, { successorSessionId: "acme-next", target: "worker" });
      const acmeAudit = new AuditReadModels(acme.store);
      await acmeAudit.catchUp();
      expect(await acmeAudit.compactions({ sessionId: session.id })).toHaveLength(1);

      const globexAudit = new AuditReadModels(globex.store);
      await globexAudit.catchUp();
      for (const id of [session.id, fork.id]) {
        await expect(globex.resume(id)).rejects.toBeInstanceOf(NotFoundError);
        await expect(globex.fork(id)).rejects.toBeInstanceOf(NotFoundError);
        await expect(globex.erase(id)).rejects.toBeInstanceOf(NotFoundError);
        await expect(globex.handoffs.request(id)).rejects.toBeInstanceOf(NotFoundError);
        await expect(globexAudit.lineage(id)).rejects.toBeInstanceOf(NotFoundError);
        expect(await globex.store.readStream(id)).toEqual([]);
        expect(await globex.store.getSession(id)).toBeUndefined();
      }
      expect(await globex.sessions()).toEqual([]);
      expect(await globex.handoffs.list()).toEqual([]);
      expect(await globex.handoffs.claim({ claimant: "globex-worker", leaseMs: 60_000, target: "worker" })).toBe(
        undefined,
      );
      expect(await globexAudit.compactions({})).toEqual([]);
      expect(await globexAudit.message("u1")).toEqual([]);
      expect(await globexAudit.compaction("c1")).toEqual([]);
      expect(await globexAudit.lineageTrees()).toEqual([]);
      expect((await globex.store.readAll()).events).toEqual([]);

      // Acme's hand-off is still acme's to claim.
      const claim = await acme.handoffs.claim({ claimant: "acme-worker", leaseMs: 60_000, target: "worker" });
      expect(claim?.sourceSessionId).toBe(fork.id);
    });

    it("watches a tenant's own log only, and lets the other tenant take the same session id", async () => {
      const checkpoint = await globex.store.globalHead();
      // Globex's two events to come (its session's start and message), and whatever else the watcher emits.
      const all: StoredEvent[] = [];
      const watcher = watchEvents(globex.store, { all: true, after: checkpoint });
      const everything = watcher.subscribe((e) => all.push(e));
      const firstTwo = firstValueFrom(watcher.pipe(take(2), toArray()));
      const sessionWatch = watchEvents(globex.store, { sessionId: "shared-id" });
      const firstOfShared = firstValueFrom(sessionWatch.pipe(filter((e) => e.type === "message.appended")));
      try {
        // Acme writes to its "shared-id" first; then globex starts its own "shared-id".
        const acmeSession = await acme.resume("shared-id");
        await acmeSession.append({ role: "user", content: "more from acme" });
        const own = await globex.startSession({ sessionId: "shared-id" });
        await own.append({ id: "g1", role: "user", content: "globex's first" });
        const seen = await firstOfShared;
        expect(seen).toMatchObject({ tenantId: "globex", sessionId: "shared-id" });
        expect(seen.type === "message.appended" && seen.data.message.id).toBe("g1");
        const own2 = await globex.resume("shared-id");
        expect(own2.view().messages.map((m) => m.id)).toEqual(["g1"]);
        expect((await acme.resume("shared-id")).view().messages.map((m) => m.id)).toEqual([
          "s1",
          "u2",
          "a2",
          expect.any(String),
        ]);
        expect((await firstTwo).map((e) => [e.tenantId, e.sessionId, e.type])).toEqual([
          ["globex", "shared-id", "session.started"],
          ["globex", "shared-id", "message.appended"],
        ]);
        expect(all.every((e) => e.tenantId === "globex")).toBe(true);
      } finally {
        everything.unsubscribe();
      }
    });
  });
}
