import type { SessionSummary } from "@palimpsest/core";
import { describe, expect, it, type TestContext, vi } from "vitest";
import { MAX_SESSION_PAGE_SIZE } from "../engine/session-page.ts";
import type { ContractContext, ContractStore } from "./contract-backend.ts";
import { newSessionId, started } from "./fixtures.ts";

/** A store that pages its catalogue. */
type PagedStore = ContractStore & Required<Pick<ContractStore, "listSessionPage">>;

/** The creation time the ties test gives four sessions: the same instant, before every other session of the suite. */
const LONG_AGO = Date.parse("2000-01-01T00:00:00.000Z");

/** Every page from the newest, following `next` until the last. */
async function allPages(store: PagedStore, limit: number): Promise<SessionSummary[][]> {
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
  /** The store, or the test skipped (saying why) when it has no pages. */
  const paged = (test: TestContext): PagedStore => {
    const store = ctx.store();
    if (store.listSessionPage === undefined) {
      test.skip("the store has no listSessionPage (the catalogue's pages are not part of the EventStore port)");
    }
    return store as PagedStore;
  };
  describe("session catalogue pages", () => {
    it("pages the whole catalogue in listSessions' order, every session once, ties on time included", async (test) => {
      const store = paged(test);
      const ids = Array.from({ length: 7 }, (_, i) => newSessionId(`page-${i}`));
      const start = (id: string) => store.append(id, [started()], { expectedVersion: "no-stream" });
      // Four sessions created in the same millisecond (a store timing its writes by the process clock):
      // the cursor must order them by id.
      vi.useFakeTimers({ toFake: ["Date"], now: LONG_AGO });
      try {
        await Promise.all(ids.slice(0, 4).map(start));
      } finally {
        vi.useRealTimers();
      }
      await Promise.all(ids.slice(4).map(start));
      const times = new Set(
        await Promise.all(ids.slice(0, 4).map(async (id) => (await store.getSession(id))?.createdAt)),
      );
      if (times.size > 1)
        await test.annotate("no tie on time: the store does not take its times from the process clock");
      const pages = await allPages(store, 3);
      expect(pages.slice(0, -1).every((p) => p.length === 3)).toBe(true);
      expect(pages.at(-1)?.length).toBeGreaterThan(0);
      expect(pages.flat()).toEqual(await store.listSessions());
    });

    it("says there is no next page when the rest fits, and pages 50 by default", async (test) => {
      const store = paged(test);
      const total = (await store.listSessions()).length;
      const all = await store.listSessionPage({ limit: total });
      expect(all.sessions).toHaveLength(total);
      expect(all.next).toBeNull();
      const first = await store.listSessionPage();
      expect(first.sessions).toHaveLength(Math.min(total, 50));
      expect(first.next === null).toBe(total <= 50);
    });

    it("keeps going from a cursor while sessions are created: no repeats, no skips of older ones", async (test) => {
      const store = paged(test);
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

    it("rejects limits out of range and cursors no page returned (VALIDATION)", async (test) => {
      const store = paged(test);
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
