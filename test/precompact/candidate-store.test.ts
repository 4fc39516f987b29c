import type { Palimpsest } from "@palimpsest/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeBackends } from "../support/runtime-backends.ts";
import { databaseOf } from "../support/store-database.ts";
import { testCandidate as candidate } from "../support/test-candidate.ts";
import { candidateStore } from "./precompact-fixtures.ts";

/** The part of kysely's builders a direct write uses, over any table (kysely is a store dependency only). */
interface Updating {
  updateTable(table: string): {
    set(values: Record<string, unknown>): {
      where(column: string, op: string, value: string): { execute(): Promise<unknown> };
    };
  };
}

for (const backend of runtimeBackends()) {
  describe.skipIf(backend.skip !== undefined)(`precompaction candidates table (${backend.name})`, () => {
    let runtime: Palimpsest;
    beforeAll(async () => {
      await backend.setup();
      runtime = await backend.open();
    });
    afterAll(() => backend.dispose());

    it("round-trips one candidate per session, a newer one replacing the older, and deletes it", async () => {
      const store = candidateStore(runtime);
      const session = await runtime.startSession();
      expect(await store.loadCandidate(session.id)).toBeUndefined();
      const first = candidate(session.id);
      expect(await store.saveCandidate(first)).toBe(true);
      expect(await store.loadCandidate(session.id)).toEqual(first);
      const newer = candidate(session.id, {
        summary: "newer",
        summaryMs: 7,
        auxTokensIn: 1_200,
        auxTokensOut: 300,
        auxTokensCacheRead: 1_000,
        auxTokensCacheWrite: 150,
      });
      expect(await store.saveCandidate(newer)).toBe(true);
      expect(await store.loadCandidate(session.id)).toEqual(newer);
      await store.deleteCandidate(session.id);
      expect(await store.loadCandidate(session.id)).toBeUndefined();
    });

    it("drops the cache counts a process from before migration 0021 left beside a new candidate's input", async () => {
      const store = candidateStore(runtime);
      const session = await runtime.startSession();
      const counts = { auxTokensIn: 1_200, auxTokensOut: 300, auxTokensCacheRead: 1_000, auxTokensCacheWrite: 150 };
      const saved = candidate(session.id, counts);
      // An older process's upsert writes the columns it knows and leaves the cache's as they were.
      const rewrite = (auxTokensIn: number | null) =>
        (databaseOf(runtime.store) as unknown as Updating)
          .updateTable("precompaction_candidates")
          .set({ summary: "older", aux_tokens_in: auxTokensIn, aux_tokens_out: 90 })
          .where("session_id", "=", session.id)
          .execute();
      for (const auxTokensIn of [null, 500]) {
        expect(await store.saveCandidate(saved)).toBe(true);
        await rewrite(auxTokensIn);
        expect(await store.loadCandidate(session.id)).toEqual({
          ...saved,
          summary: "older",
          auxTokensIn: auxTokensIn ?? undefined,
          auxTokensOut: 90,
          auxTokensCacheRead: undefined,
          auxTokensCacheWrite: undefined,
        });
      }
    });

    it("stores nothing when the session's view version moved past the candidate's basis (or it has no log)", async () => {
      const store = candidateStore(runtime);
      const session = await runtime.startSession();
      expect(await store.saveCandidate(candidate(session.id))).toBe(true);
      expect(await store.saveCandidate(candidate(session.id, { basisViewVersion: 3, summary: "stale" }))).toBe(false);
      expect((await store.loadCandidate(session.id))?.summary).toBe("Goal: ship it. Blocked: nothing.");
      expect(await store.saveCandidate(candidate("no-such-session"))).toBe(false);
    });

    it("is seen by another process on the same database", async () => {
      const session = await runtime.startSession();
      const saved = candidate(session.id);
      await candidateStore(runtime).saveCandidate(saved);
      const other = await backend.open();
      expect(await candidateStore(other).loadCandidate(session.id)).toEqual(saved);
    });
  });
}
