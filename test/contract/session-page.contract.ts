import type { SessionSummary } from "@palimpsest/core";
import { MAX_SESSION_PAGE_SIZE } from "@palimpsest/store";
import { describe, expect, it } from "vitest";
import type { TestStore } from "../support/store-backends.ts";
import { databaseOf } from "../support/store-database.ts";
import { type ContractContext, newSessionId, started } from "./fixtures.ts";

/** Every page from the newest, following `next` until the last. */
async function allPages(store: TestStore, limit: number): Promise<SessionSummary[][]> {
  const pages: SessionSummary[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store.listSessionPage({ limit, ...(after === undefined ? {} : { after }) });
    pages.push(page.sessions);
    if (page.next === null) return pages;
    after = page.next;
  }
}

/** The paged session catalogue: listSessions' order, page by page, with typed errors for bad input. */
export function sessionPageContract(ctx: ContractContext): void {
  describe("session catalogue pages", () => {
    it("pages the whole catalogue in listSessions' order, every session once, ties on time included", async () => {
      const store = ctx.store();
      const ids = Array.from({ length: 7 }, (_, i) => newSessionId(`page-${i}`));
      await Promise.all(ids.map((id) => store.append(id, [started()], { expectedVersion: "no-stream" })));
      // Four sessions created in the same millisecond: the cursor must order them by id.
      await databaseOf(store)
        .updateTable("sessions")
        .set({ created_at: "2000-01-01T00:00:00.000Z" })
        .where("session_id", "in", ids.slice(0, 4))
        .execute();
      const pages = await allPages(store, 3);
      expect(pages.slice(0, -1).every((p) => p.length === 3)).toBe(true);
      expect(pages.at(-1)?.length).toBeGreaterThan(0);
      expect(pages.flat()).toEqual(await store.listSessions());
    });

    it("says there is no next page when the rest fits, and pages 50 by default", async () => {
      const store = ctx.store();
      const total = (await store.listSessions()).length;
      const all = await store.listSessionPage({ limit: total });
      expect(all.sessions).toHaveLength(total);
      expect(all.next).toBeNull();
      const first = await store.listSessionPage();
      expect(first.sessions).toHaveLength(Math.min(total, 50));
      expect(first.next === null).toBe(total <= 50);
    });

    it("keeps going from a cursor while sessions are created: no repeats, no skips of older ones", async () => {
      const store = ctx.store();
      await store.append(newSessionId("page-before"), [started()], { expectedVersion: "no-stream" });
      const before = await store.listSessions();
      const first = await store.listSessionPage({ limit: 2 });
      const newer = newSessionId("page-newer");
      await store.append(newer, [started()], { expectedVersion: "no-stream" });
      const rest: SessionSummary[] = [];
      for (let after = first.next; after !== null; ) {
        const page = await store.listSessionPage({ limit: 2, after });
        rest.push(...page.sessions);
        after = page.next;
      }
      expect([...first.sessions, ...rest].map((s) => s.sessionId)).toEqual(before.map((s) => s.sessionId));
    });

    it("rejects limits out of range and cursors no page returned (VALIDATION)", async () => {
      const store = ctx.store();
      for (const limit of [0, -1, 1.5, Number.NaN, MAX_SESSION_PAGE_SIZE + 1]) {
        await expect(store.listSessionPage({ limit })).rejects.toMatchObject({ code: "VALIDATION" });
      }
      const foreign = [
        "not a cursor",
        "",
        Buffer.from("[1,2]").toString("base64url"),
        Buffer.from('["yesterday","s"]').toString("base64url"),
        Buffer.from("{").toString("base64url"),
      ];
      for (const after of foreign) {
        await expect(store.listSessionPage({ after })).rejects.toMatchObject({ code: "VALIDATION" });
      }
    });
  });
}
