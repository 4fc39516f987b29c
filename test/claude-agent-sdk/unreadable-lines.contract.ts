import type { SessionKey, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import type { PalimpsestSessionStore } from "@palimpsest/claude-agent-sdk";
import { isPalimpsestError, MIRROR_LIMITS } from "@palimpsest/core";
import type { OpenedEventStore } from "@palimpsest/store";
import { describe, expect, it } from "vitest";
import { databaseOf } from "../support/store-database.ts";
import { TranscriptWriter, text, toolUse } from "./claude-code-lines.ts";
import { type ContractContext, newKey } from "./contract-context.ts";

/** A settle far beyond any test: only flush (or sessionIds) folds a trailing assistant message. */
const NEVER_SETTLES = { settleMs: 600_000 };

/** The texts of the main thread's messages, folded now. */
async function foldedTexts(store: PalimpsestSessionStore, key: SessionKey): Promise<string[]> {
  const [id] = await store.sessionIds(key);
  if (id === undefined) throw new Error("the key is folded into no session");
  const messages = (await store.runtime.resume(id)).view().messages;
  return messages.map((m) => m.content.map((p) => (p.type === "text" ? p.text : "")).join(""));
}

/** The line numbers (the entries' seqs) the VALIDATION errors reported through onError name. */
function reportedLines(errors: readonly unknown[]): string[] {
  return errors.map((error) =>
    isPalimpsestError(error, "VALIDATION") ? String((error.details as { path?: string }).path) : String(error),
  );
}

/** uuids that are no id Palimpsest can store: a NUL, a lone surrogate, nothing. */
const BAD_UUIDS: [string, string][] = [
  ["a NUL", "bad\u0000uuid"],
  ["a lone surrogate", "bad\uD800uuid"],
  ["an empty string", ""],
];

/**
 * Lines the fold cannot take (docs/claude-agent-sdk.md, "The mirrored session"): each is left out of the
 * fold and reported once through onError, stays stored (`load` returns it), and the lines after it are
 * folded, in this fold and every later one.
 */
export function unreadableLinesContract({ fresh }: ContractContext): void {
  describe("lines the fold cannot take", () => {
    it.each(BAD_UUIDS)(
      "leaves out a line whose uuid holds %s, reports it once, and folds the lines after it",
      async (_name, uuid) => {
        const database = await fresh();
        const folds: unknown[] = [];
        const store = await database.open({ ...NEVER_SETTLES, onError: (error) => folds.push(error) });
        const w = new TranscriptWriter();
        const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
        await store.append(key, [w.user("before"), w.assistant("msg_0", text("first reply"))]);
        await store.flush();
        const bad: SessionStoreEntry = { ...w.user("the odd line"), uuid };
        await store.append(key, [bad]);
        await store.append(key, [w.user("after"), w.assistant("msg_1", text("second reply"))]);
        await store.flush();
        expect(await foldedTexts(store, key)).toEqual(["before", "first reply", "after", "second reply"]);
        expect((await store.load(key))?.[2]).toEqual(bad);
        // Later folds (each append's, and flushes) go on past it and do not report it again.
        await store.append(key, [w.user("later"), w.assistant("msg_2", text("third reply"))]);
        await store.flush();
        await store.flush();
        expect(await foldedTexts(store, key)).toEqual([
          "before",
          "first reply",
          "after",
          "second reply",
          "later",
          "third reply",
        ]);
        expect(reportedLines(folds)).toEqual([`${key.sessionId}.jsonl:3`]);
        // Nor does another store, once the line was folded past.
        await store.close();
        const errors: unknown[] = [];
        const reopened = await database.open({ ...NEVER_SETTLES, onError: (error) => errors.push(error) });
        await reopened.append(key, [w.user("reopened"), w.assistant("msg_3", text("fourth reply"))]);
        await reopened.flush();
        expect((await foldedTexts(reopened, key)).slice(-2)).toEqual(["reopened", "fourth reply"]);
        expect(errors).toEqual([]);
      },
    );

    // The importer's message check names the message, not the line: the fold finds the line itself.
    it.each([
      ["whose message.id holds a NUL", (w: TranscriptWriter) => w.assistant("msg_\u0000", text("odd reply"))],
      [
        "whose tool_use id holds a lone surrogate",
        (w: TranscriptWriter) => w.assistant("msg_odd", toolUse("toolu_\uDC00", "Bash", { command: "true" })),
      ],
    ])("leaves out an assistant line %s, reports it once, and folds the lines after it", async (_name, odd) => {
      const folds: unknown[] = [];
      const store = await (await fresh()).open({ ...NEVER_SETTLES, onError: (error) => folds.push(error) });
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [w.user("before"), w.assistant("msg_0", text("first reply")), w.user("go on")]);
      await store.append(key, [odd(w), w.user("after"), w.assistant("msg_1", text("second reply"))]);
      await store.flush();
      await store.append(key, [w.user("later"), w.assistant("msg_2", text("third reply"))]);
      await store.flush();
      expect(await foldedTexts(store, key)).toEqual([
        "before",
        "first reply",
        "go on",
        "after",
        "second reply",
        "later",
        "third reply",
      ]);
      expect(folds).toHaveLength(1);
      expect(folds[0]).toMatchObject({ code: "VALIDATION" });
    });

    it("leaves out a line stored before uuids had a length limit (one byte over it), reporting it once", async () => {
      const database = await fresh();
      const folds: unknown[] = [];
      const store = await database.open({ ...NEVER_SETTLES, onError: (error) => folds.push(error) });
      const w = new TranscriptWriter();
      const key = { projectKey: newKey().projectKey, sessionId: w.sessionId };
      await store.append(key, [w.user("before"), w.assistant("msg_0", text("first reply"))]);
      await store.flush();
      // What an older version stored (append refuses it now): written to the mirror's tables as it did.
      const long: SessionStoreEntry = { ...w.user("the long one"), uuid: "u".repeat(MIRROR_LIMITS.uuid + 1) };
      const db = databaseOf(store.runtime.store as OpenedEventStore);
      const where = { project_key: key.projectKey, session_key: key.sessionId, subpath: "" };
      await db
        .insertInto("mirror_entries")
        .values({ ...where, generation: 0, seq: 3, uuid: long.uuid ?? null, entry: JSON.stringify(long) })
        .execute();
      await db
        .updateTable("mirror_keys")
        .set({ next_seq: 3 })
        .where((eb) => eb.and(where))
        .execute();
      await store.append(key, [w.user("after"), w.assistant("msg_1", text("second reply"))]);
      await store.flush();
      await store.flush();
      expect(await foldedTexts(store, key)).toEqual(["before", "first reply", "after", "second reply"]);
      expect((await store.load(key))?.[2]).toEqual(long);
      expect(reportedLines(folds)).toEqual([`${key.sessionId}.jsonl:3`]);
    });
  });
}
