/**
 * The `palimpsest` command on sessions the Claude Agent SDK SessionStore mirrored: named by the SDK's
 * session id, viewed with the compaction Claude Code made, and erased with their mirrored entries.
 */
import { openSessionStore } from "@palimpsest/claude-agent-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliDatabase, jsonError, runPalimpsest } from "../cli/harness.ts";
import { TranscriptWriter, text } from "./claude-code-lines.ts";
import { DATABASES, EXAMPLE_ENTRIES, EXAMPLE_KEY } from "./example-session.ts";

const { sessionId } = EXAMPLE_KEY;
const entries = EXAMPLE_ENTRIES;
const key = EXAMPLE_KEY;

for (const [name, make] of DATABASES) {
  describe.skipIf(make === undefined)(`palimpsest on a mirrored Claude Agent SDK session (${name})`, () => {
    let db: CliDatabase;
    let palimpsestId = "";
    const cli = (...args: string[]) => runPalimpsest(["--db", db.url, "--json", ...args]);

    beforeAll(async () => {
      db = await (make as () => Promise<CliDatabase>)();
      const store = await openSessionStore({ url: db.url });
      // As the SDK mirrors a turn: several batches, one assistant message split across two of them.
      await store.append(key, entries.slice(0, 2));
      await store.append(key, entries.slice(2, 5));
      await store.append(key, entries.slice(5));
      [palimpsestId = ""] = await store.sessionIds(key);
      await store.close();
    });
    afterAll(() => db.dispose());

    it("names the session by the SDK's session id in sessions, view and history", async () => {
      const [sessions, view, history] = await Promise.all([
        cli("sessions"),
        cli("view", sessionId),
        cli("history", sessionId),
      ]);
      for (const result of [sessions, view, history]) expect(result.code, result.stderr).toBe(0);
      const listed = (JSON.parse(sessions.stdout) as { sessions: { sessionId: string; name: string }[] }).sessions;
      expect(listed).toContainEqual(expect.objectContaining({ sessionId: palimpsestId, name: sessionId }));
      const shown = JSON.parse(view.stdout) as { sessionId: string; messages: { role: string }[] };
      expect(shown.sessionId).toBe(palimpsestId);
      expect(shown.messages.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
      expect(JSON.parse(history.stdout)).toMatchObject([{ mode: "import", trigger: "manual" }]);
    });

    it("mirrored finds the keys and sessions of an SDK session id alone", async () => {
      const mirrored = await cli("mirrored", sessionId);
      expect(mirrored.code, mirrored.stderr).toBe(0);
      expect(JSON.parse(mirrored.stdout)).toEqual({
        sessionId,
        keys: [{ projectKey: key.projectKey, subpath: "", entries: entries.length, sessions: [palimpsestId] }],
      });
      const text = await runPalimpsest(["--db", db.url, "mirrored", sessionId]);
      expect(text.stdout).toContain(key.projectKey);
      const unknown = await cli("mirrored", new TranscriptWriter().sessionId);
      expect(unknown.code).toBe(1);
      expect(jsonError(unknown)).toMatchObject({ code: "NOT_FOUND" });
    });

    it("an SDK session id under two project keys: view lists both sessions, mirrored both keys", async () => {
      const w = new TranscriptWriter();
      const lines = [w.user("hello"), w.assistant("msg_1", text("hi"))];
      const store = await openSessionStore({ url: db.url });
      const keys = ["-work-a", "-work-b"].map((projectKey) => ({ projectKey, sessionId: w.sessionId }));
      const ids: string[] = [];
      try {
        for (const k of keys) {
          await store.append(k, lines);
          ids.push(...(await store.sessionIds(k)));
        }
      } finally {
        await store.close();
      }
      const view = await cli("view", w.sessionId);
      expect(view.code).toBe(2);
      expect(jsonError(view)).toMatchObject({
        code: "VALIDATION",
        details: { kind: "session", name: w.sessionId, candidates: [...ids].sort() },
      });
      const mirrored = await cli("mirrored", w.sessionId);
      expect(mirrored.code, mirrored.stderr).toBe(0);
      const found = JSON.parse(mirrored.stdout) as { keys: { projectKey: string; sessions: string[] }[] };
      expect(found.keys.map((k) => [k.projectKey, k.sessions])).toEqual([
        ["-work-a", [ids[0]]],
        ["-work-b", [ids[1]]],
      ]);
      const one = await cli("view", ids[1] ?? "");
      expect(one.code, one.stderr).toBe(0);
    });

    it("erase removes the mirrored entries too: the SDK loads nothing afterwards", async () => {
      const erased = await cli("erase", sessionId, "--yes", "--reason", "retention");
      expect(erased.code, erased.stderr).toBe(0);
      expect(JSON.parse(erased.stdout)).toMatchObject({ sessionId: palimpsestId, erased: true });
      const store = await openSessionStore({ url: db.url });
      try {
        expect(await store.load(key)).toBeNull();
        expect(await store.listSessions(key.projectKey)).toEqual([]);
        expect((await store.runtime.store.getSession(palimpsestId))?.erasedAt).toBeDefined();
      } finally {
        await store.close();
      }
    });
  });
}
