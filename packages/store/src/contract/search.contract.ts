import {
  type DomainEvent,
  isPalimpsestError,
  type MessageSearchHit,
  type MessageSearchQuery,
  searchTerms,
} from "@palimpsest/core";
import { describe, expect, it } from "vitest";
import type { ContractContext, ContractStore } from "./contract-backend.ts";
import { newSessionId, started, summaryEvent, userMessage } from "./fixtures.ts";

/** An assistant message calling a tool with `args`, and the tool's result `output`. */
function toolExchange(n: number, args: string, output: string): DomainEvent[] {
  return [
    {
      type: "message.appended",
      data: {
        message: {
          id: `a${n}`,
          role: "assistant",
          content: [{ type: "text", text: "running it" }],
          toolCalls: [{ id: `c${n}`, name: "shell", arguments: args }],
        },
        tokens: 1,
      },
    },
    {
      type: "message.appended",
      data: {
        message: { id: `r${n}`, role: "tool", toolCallId: `c${n}`, content: [{ type: "text", text: output }] },
        tokens: 1,
      },
    },
  ];
}

/** The ids of the messages a search found, in its order. */
const idsOf = (hits: readonly MessageSearchHit[]) =>
  hits.map((h) => (h.event.data as { message: { id: string } }).message.id);

/**
 * Searching messages (MessageSearch): any of the query's terms, over every message the sessions' logs
 * hold (superseded ones too), ranked, paged, confined to the sessions asked for and the store's tenant,
 * emptied of a session by its erasure (a store that encrypts content keeps no index and scans instead).
 */
export function searchContract(ctx: ContractContext): void {
  describe("search of messages", () => {
    const search = (store: ContractStore, sessionIds: string[], text: string, limit = 10, offset = 0) =>
      store.searchMessages({ sessionIds, terms: searchTerms(text), limit, offset });

    it("finds messages by the words of their text, tool arguments and output, superseded ones too", async () => {
      const store = ctx.store();
      const sid = newSessionId("search");
      await store.append(
        sid,
        [
          started(),
          userMessage("u1", "Please fix the flaky ReconnectTimeout in packages/store/src/change-feed.ts"),
          ...toolExchange(1, '{"command":"pnpm vitest run test/contract --bail 3"}', "Error: ECONNRESET after 4096 ms"),
          userMessage("u2", "thanks, now the docs"),
        ],
        { expectedVersion: "no-stream" },
      );
      await store.append(sid, [summaryEvent("k1", ["u1", "a1", "r1"], "s1")], { expectedVersion: 5 });
      expect(idsOf(await search(store, [sid], "reconnecttimeout"))).toEqual(["u1"]);
      expect(idsOf(await search(store, [sid], "change-feed.ts"))).toEqual(["u1"]);
      expect(idsOf(await search(store, [sid], "vitest --bail"))).toEqual(["a1"]);
      expect(idsOf(await search(store, [sid], "ECONNRESET 4096"))).toEqual(["r1"]);
      // Any term matches, ranked by the engine (BM25 weighs rare terms: the order is the engine's), best first.
      const both = await search(store, [sid], "flaky docs fix");
      expect(idsOf(both).sort()).toEqual(["u1", "u2"]);
      expect(both[0]?.rank).toBeGreaterThanOrEqual(both[1]?.rank ?? Number.POSITIVE_INFINITY);
      expect(both.find((h) => idsOf([h])[0] === "u1")?.event).toMatchObject({
        sessionId: sid,
        seq: 2,
        type: "message.appended",
      });
      expect(await search(store, [sid], "nowhere")).toEqual([]);
    });

    it("finds a compound (a version, a file name, an identifier, a dotfile, a number with its unit) whole, in a long message, before short messages holding only its words", async () => {
      const store = ctx.store();
      const sid = newSessionId("search-compound");
      // Short messages holding 3, 16, env, 250 and ms, among others holding none (so those words are not everywhere).
      const short = Array.from({ length: 8 }, (_, i) => userMessage(`n${i}`, `step 3 of 16: env 250 ms`));
      const other = Array.from({ length: 30 }, (_, i) => userMessage(`o${i}`, `unrelated note ${i + 100}`));
      await store.append(
        sid,
        [
          started(),
          // Long (a file read whole): a length-normalized rank alone would put the short messages first.
          userMessage(
            "v",
            `pin the dependency to ~> 3.16 in mix.exs, as the ERR_QUOKKA_7731 report asks for it; .env read in 250ms\n${Array.from(
              { length: 400 },
              (_, i) => `line${i}`,
            ).join(" ")}`,
          ),
          ...short,
          ...other,
        ],
        { expectedVersion: "no-stream" },
      );
      for (const query of ["3.16", "mix.exs", "err_quokka_7731", ".env", "250ms"]) {
        expect(idsOf(await search(store, [sid], query, 3))[0], query).toBe("v");
      }
      expect(idsOf(await search(store, [sid], "quokka"))).toEqual(["v"]);
      // Written apart, a number and its unit find it written together.
      expect(idsOf(await search(store, [sid], "250 ms", 20))).toContain("v");
    });

    it("searches only the sessions asked for, pages the hits, and gives another tenant nothing", async () => {
      const store = ctx.store();
      const [first, second, third] = [newSessionId("search-a"), newSessionId("search-b"), newSessionId("search-c")];
      for (const [sid, n] of [
        [first, 3],
        [second, 2],
        [third, 4],
      ] as const) {
        const messages = Array.from({ length: n }, (_, i) => userMessage(`m${i}`, `deploy step ${i} of ${sid}`));
        await store.append(sid, [started(), ...messages], { expectedVersion: "no-stream" });
      }
      expect((await search(store, [first], "deploy")).map((h) => h.event.sessionId)).toEqual([first, first, first]);
      const two = await search(store, [first, second], "deploy");
      expect(new Set(two.map((h) => h.event.sessionId))).toEqual(new Set([first, second]));
      expect(two).toHaveLength(5);
      const paged: MessageSearchHit[] = [];
      for (const offset of [0, 2, 4]) paged.push(...(await search(store, [first, second], "deploy", 2, offset)));
      expect(paged.map((h) => h.event.eventId)).toEqual(two.map((h) => h.event.eventId));
      const other = await ctx.backend().open({ tenant: "search-other" });
      expect(await search(other, [first, second, third], "deploy")).toEqual([]);
    });

    it("an erasure takes the session's messages out of the search at once", async () => {
      const store = ctx.store();
      const [erased, kept] = [newSessionId("search-erased"), newSessionId("search-kept")];
      for (const sid of [erased, kept]) {
        await store.append(sid, [started(), userMessage("m", `the quarterly password is swordfish for ${sid}`)], {
          expectedVersion: "no-stream",
        });
      }
      await store.erase(erased);
      expect(await search(store, [erased], "swordfish quarterly password")).toEqual([]);
      expect(idsOf(await search(store, [erased, kept], "swordfish"))).toEqual(["m"]);
    });

    it("indexes hostile text by its words and refuses terms that are not search terms", async () => {
      const store = ctx.store();
      const sid = newSessionId("search-hostile");
      const hostile =
        "NUL \u0000 lone \uD800 'quoted' \"AND\" OR NOT NEAR(x y) *star ^caret 東京 résumé; DROP TABLE events; --";
      await store.append(sid, [started(), userMessage("h", hostile)], { expectedVersion: "no-stream" });
      for (const words of ["quoted", "and or not near", "東京", "résumé", "drop table", "star caret"]) {
        expect(idsOf(await search(store, [sid], words)), words).toEqual(["h"]);
      }
      const bad: [MessageSearchQuery, string][] = [
        [{ sessionIds: [sid], terms: ["x".repeat(65)], limit: 5 }, "terms.0"],
        [{ sessionIds: [sid], terms: ['quote"'], limit: 5 }, "terms.0"],
        [{ sessionIds: [sid], terms: ["a b"], limit: 5 }, "terms.0"],
        [{ sessionIds: [sid], terms: ["a..b"], limit: 5 }, "terms.0"],
        [{ sessionIds: [sid], terms: ["-a"], limit: 5 }, "terms.0"],
        [{ sessionIds: [sid], terms: [], limit: 5 }, "terms"],
        [{ sessionIds: [], terms: ["x"], limit: 5 }, "sessionIds"],
        [{ sessionIds: [sid], terms: ["x"], limit: 0 }, "limit"],
        [{ sessionIds: [sid], terms: ["x"], limit: 5, offset: -1 }, "offset"],
      ];
      for (const [query, path] of bad) {
        const error = await store.searchMessages(query).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isPalimpsestError(error) && [error.code, error.details.path], JSON.stringify(query)).toEqual([
          "VALIDATION",
          path,
        ]);
      }
    });
  });
}
